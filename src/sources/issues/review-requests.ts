import {
  type PullReviews,
  REPLY_MARKER,
  type ReviewBody,
  type ReviewThread,
  type ThreadComment,
} from '../../github/review-threads.js';

/** What reviewers with write access asked issueloop for: a thread, or a review's own body. */
export type ReviewRequest = ThreadRequest | ReviewBodyRequest;

/** A review that requested changes in its body: answered on the PR's conversation. */
export interface ReviewBodyRequest {
  kind: 'review';
  reviewId: number;
  author: string;
  body: string;
}

/** A review thread that asks issueloop for a change: the conversation it may be shown. */
export interface ThreadRequest {
  kind: 'thread';
  threadId: string;
  path: string;
  line: number | null;
  diffHunk: string;
  /** The thread's comments from people with write access and issueloop's own replies, oldest first. */
  comments: ThreadComment[];
  /** Comments left out because their authors cannot write to the repository. */
  leftOut: number;
  /** Comments in the middle of a thread too long to read whole (its start and end were read). */
  unread?: number;
}

/**
 * The unresolved threads in which someone with write access wrote after issueloop's last reply (or
 * since the thread began). Comments by people without write access never start work and are never
 * shown to the agent (the same trust rule as for issues). issueloop's replies are its own login's
 * comments carrying REPLY_MARKER (a pasted marker is not one).
 */
export async function unansweredRequests(
  threads: readonly ReviewThread[],
  who: { self: string; mayWrite: (login: string) => Promise<boolean> },
): Promise<ThreadRequest[]> {
  const requests: ThreadRequest[] = [];
  for (const thread of threads) {
    if (thread.isResolved) continue;
    const shown: ThreadComment[] = [];
    let leftOut = 0;
    let waiting = false;
    for (const comment of thread.comments) {
      const own = sameAccount(comment.author, who.self);
      if (!own && !(await who.mayWrite(comment.author))) {
        leftOut += 1;
        continue;
      }
      shown.push(comment);
      waiting = !(own && comment.body.includes(REPLY_MARKER));
    }
    if (!waiting) continue;
    requests.push({
      kind: 'thread',
      threadId: thread.id,
      path: thread.path,
      line: thread.line,
      diffHunk: thread.comments[0]?.diffHunk ?? '',
      comments: shown,
      leftOut,
      ...(thread.unread ? { unread: thread.unread } : {}),
    });
  }
  return requests;
}

/**
 * The reviews that requested changes with a body of their own, from people with write access, that
 * no follow-up answered yet (`answered`: the review ids the PR's body records, written with the
 * follow-up's push). A change request without a body asks through its threads only.
 */
export async function unansweredReviews(
  reviews: readonly ReviewBody[],
  who: { self: string; mayWrite: (login: string) => Promise<boolean>; answered: readonly number[] },
): Promise<ReviewBodyRequest[]> {
  const requests: ReviewBodyRequest[] = [];
  for (const review of reviews) {
    if (review.body.trim() === '' || who.answered.includes(review.id)) continue;
    if (sameAccount(review.author, who.self) || !(await who.mayWrite(review.author))) continue;
    requests.push({ kind: 'review', reviewId: review.id, author: review.author, body: review.body });
  }
  return requests;
}

/** Everything a PR's reviewers with write access wait for: review bodies first, then threads. */
export async function waitingRequests(
  read: PullReviews,
  who: { self: string; mayWrite: (login: string) => Promise<boolean>; answered: readonly number[] },
): Promise<ReviewRequest[]> {
  return [
    ...(await unansweredReviews(read.changeRequests, who)),
    ...(await unansweredRequests(read.threads, who)),
  ];
}

/**
 * GraphQL's `viewer.login` of an app is `name[bot]`, while its comments' `author.login` is `name`:
 * the two are the same account.
 */
export function sameAccount(a: string, b: string): boolean {
  const bare = (login: string) => login.toLowerCase().replace(/\[bot\]$/, '');
  return bare(a) === bare(b);
}
