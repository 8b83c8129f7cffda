import { pullShas } from './pull-refs.js';
import type { IssueRecord, ReviewCommentRecord, ReviewRecord } from './records.js';
import type { Store } from './store.js';
import type { AuthorAssociation, ReviewState, SeedReviewComment } from './types.js';

/** A thread: a top-level review comment and the replies to it, oldest first. */
export interface Thread {
  root: ReviewCommentRecord;
  comments: ReviewCommentRecord[];
}

interface Author {
  author: string;
  authorAssociation?: AuthorAssociation | undefined;
}

/** The hunk header and lines up to `line` (on `side`) of one file's unified diff, or undefined when no hunk holds it. */
function hunkAt(diff: string, line: number, side: 'LEFT' | 'RIGHT'): string | undefined {
  const lines = diff.split('\n');
  for (let start = 0; start < lines.length; start += 1) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[start] ?? '');
    if (!header) continue;
    let old = Number(header[1]);
    let now = Number(header[3]);
    for (let i = start + 1; i < lines.length && !(lines[i] ?? '').startsWith('@@'); i += 1) {
      const mark = (lines[i] ?? '')[0];
      const onLeft = mark === '-' || mark === ' ';
      const onRight = mark === '+' || mark === ' ';
      if ((side === 'LEFT' && onLeft && old === line) || (side === 'RIGHT' && onRight && now === line)) {
        return lines.slice(start, i + 1).join('\n');
      }
      if (onLeft) old += 1;
      if (onRight) now += 1;
    }
  }
  return undefined;
}

/**
 * GitHub's `diff_hunk`: the PR diff's hunk from its header down to the commented line. With
 * `origin` it is the real one (or, for a line the diff does not touch, the file's lines before it
 * as context); without, a stand-in of the same form.
 */
function diffHunk(store: Store, issue: IssueRecord, path: string, line: number, side: 'LEFT' | 'RIGHT') {
  const origin = store.lifecycle.origin;
  const { head, base } = pullShas(store, issue);
  const from = Math.max(1, line - 3);
  const count = line - from + 1;
  const header = `@@ -${from},${count} +${from},${count} @@`;
  if (!origin) return [header, ...Array.from({ length: count }, (_, i) => ` line ${from + i}`)].join('\n');
  const hunk = hunkAt(origin.diff(base, head, path, true), line, side);
  if (hunk !== undefined) return hunk;
  const text = origin.fileLines(side === 'LEFT' ? base : head, path) ?? [];
  return [header, ...text.slice(from - 1, line).map((l) => ` ${l}`)].join('\n');
}

function newComment(
  store: Store,
  issue: IssueRecord,
  review: ReviewRecord,
  fields: Pick<ReviewCommentRecord, 'path' | 'line' | 'side' | 'body' | 'commitId' | 'diffHunk'>,
  inReplyTo?: number,
): ReviewCommentRecord {
  const id = store.ids.next('review_comment');
  const comment: ReviewCommentRecord = {
    id,
    nodeId: store.ids.node('PRRC', `review_comment:${id}`),
    pullNumber: issue.number,
    reviewId: review.id,
    ...(inReplyTo === undefined ? {} : { inReplyTo }),
    ...fields,
    author: review.author,
    authorAssociation: review.authorAssociation,
    createdAt: review.submittedAt,
    updatedAt: review.submittedAt,
  };
  store.lifecycle.reviewComments.push(comment);
  return comment;
}

/** A submitted review of the PR's current head; each of its comments opens a thread. The PR's `updated_at` moves. */
export function addReview(
  store: Store,
  issue: IssueRecord,
  seed: Author & { state: ReviewState; body?: string; comments?: SeedReviewComment[] },
): { review: ReviewRecord; comments: ReviewCommentRecord[] } {
  const id = store.ids.next('review');
  const author = store.ensureUser(seed.author).login;
  const commitId = pullShas(store, issue).head;
  const review: ReviewRecord = {
    id,
    nodeId: store.ids.node('PRR', `review:${id}`),
    pullNumber: issue.number,
    author,
    authorAssociation: seed.authorAssociation ?? store.association(author),
    state: seed.state,
    body: seed.body ?? '',
    submittedAt: store.timestamp(),
    commitId,
  };
  store.lifecycle.reviews.push(review);
  const comments = (seed.comments ?? []).map((c) => {
    const side = c.side ?? 'RIGHT';
    const diff = diffHunk(store, issue, c.path, c.line, side);
    return newComment(store, issue, review, { ...c, side, commitId, diffHunk: diff });
  });
  issue.updatedAt = review.submittedAt;
  return { review, comments };
}

export function threadRoot(store: Store, comment: ReviewCommentRecord): ReviewCommentRecord {
  if (comment.inReplyTo === undefined) return comment;
  return store.lifecycle.reviewComments.find((c) => c.id === comment.inReplyTo) ?? comment;
}

/**
 * A reply in a thread, as GitHub files one: in a review of its own (COMMENTED, no body), at the
 * thread's position; a reply to a reply joins the thread of its top-level comment.
 */
export function addReply(
  store: Store,
  issue: IssueRecord,
  to: ReviewCommentRecord,
  seed: Author & { body: string },
): ReviewCommentRecord {
  const root = threadRoot(store, to);
  const { review } = addReview(store, issue, {
    author: seed.author,
    authorAssociation: seed.authorAssociation,
    state: 'COMMENTED',
  });
  const { path, line, side, commitId, diffHunk: hunk } = root;
  return newComment(
    store,
    issue,
    review,
    { path, line, side, body: seed.body, commitId, diffHunk: hunk },
    root.id,
  );
}

export function reviewCommentsOf(store: Store, pullNumber: number): ReviewCommentRecord[] {
  return store.lifecycle.reviewComments.filter((c) => c.pullNumber === pullNumber);
}

export function threadsOf(store: Store, pullNumber: number): Thread[] {
  const comments = reviewCommentsOf(store, pullNumber);
  return comments
    .filter((c) => c.inReplyTo === undefined)
    .map((root) => ({ root, comments: comments.filter((c) => c === root || c.inReplyTo === root.id) }));
}

/**
 * Whether the file changed since the thread's comment was made (with `origin`; never without one).
 * GitHub judges by the commented lines, the emulator by the file: coarser, never the other way round.
 */
export function isOutdated(store: Store, root: ReviewCommentRecord): boolean {
  const origin = store.lifecycle.origin;
  const issue = store.issues.get(root.pullNumber);
  if (!origin || !issue) return false;
  const { head } = pullShas(store, issue);
  return head !== root.commitId && origin.diff(root.commitId, head, root.path) !== '';
}

export function threadNodeId(store: Store, root: ReviewCommentRecord): string {
  return store.ids.node('PRRT', `thread:${root.id}`);
}

export function threadByNodeId(store: Store, nodeId: string): Thread | undefined {
  const root = store.lifecycle.reviewComments.find(
    (c) => c.inReplyTo === undefined && threadNodeId(store, c) === nodeId,
  );
  return root ? threadsOf(store, root.pullNumber).find((t) => t.root === root) : undefined;
}

/** The latest decisive review of each reviewer decides: any changes requested, else any approval, else none. */
export function reviewDecision(store: Store, pullNumber: number): ReviewState | null {
  const latest = new Map<string, ReviewState>();
  for (const review of store.lifecycle.reviews) {
    if (review.pullNumber === pullNumber && review.state !== 'COMMENTED')
      latest.set(review.author, review.state);
  }
  const states = [...latest.values()];
  if (states.includes('CHANGES_REQUESTED')) return 'CHANGES_REQUESTED';
  return states.includes('APPROVED') ? 'APPROVED' : null;
}
