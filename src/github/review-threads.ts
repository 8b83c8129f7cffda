import type { GitHubClient } from './client.js';
import { gql } from './gql.js';
import { allReviews, newestThreads, type RawReviewPage, type RawThread } from './review-pages.js';
import { wholeThread } from './thread-comments.js';

/**
 * The review threads of a pull request (GraphQL: REST has no threads, nor whether one is resolved)
 * and its reviews that requested changes (their own bodies), in one query, and issueloop's answers
 * to them. Read only when the PR changed since the last read (its `updated_at`), so an idle round
 * asks nothing. Cost: 1 point per query (50 threads × their first 100 comments, 100 reviews); a PR
 * with more than 50 threads takes a query per 50, and a thread with more than 100 comments a query
 * per further 100 (thread-comments.ts), more than 100 reviews a query per 100 (review-pages.ts).
 * Every comment and review is read, from the start: whether a writer asked something cannot depend
 * on how many others wrote before or after them.
 */
export const PULL_REVIEW_THREADS = gql`
  query PullReviewThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        reviewThreads(first: 50, after: $after) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes {
            id
            isResolved
            isOutdated
            path
            line
            comments(first: 100) {
              totalCount
              pageInfo { hasNextPage endCursor }
              nodes { databaseId body author { login } diffHunk createdAt }
            }
          }
        }
        reviews(first: 100, states: [APPROVED, CHANGES_REQUESTED, DISMISSED]) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { databaseId body state author { login } submittedAt }
        }
      }
    }
  }
`;

/** 500 threads from the start, then the newest 50: past that a PR is spam or beyond one follow-up. */
const MAX_THREAD_PAGES = 10;

export const REPLY_TO_THREAD = gql`
  mutation ReplyToReviewThread($thread: ID!, $body: String!) {
    addPullRequestReviewThreadReply(input: { pullRequestReviewThreadId: $thread, body: $body }) {
      comment { id }
    }
  }
`;

export const RESOLVE_THREAD = gql`
  mutation ResolveReviewThread($thread: ID!) {
    resolveReviewThread(input: { threadId: $thread }) { thread { id isResolved } }
  }
`;

export const VIEWER_LOGIN = gql`
  query ViewerLogin {
    viewer { login }
  }
`;

/** Marks issueloop's own replies, so a thread it answered is not worked again until someone writes. */
export const REPLY_MARKER = '<!-- issueloop:reply -->';

export interface ThreadComment {
  id: number;
  body: string;
  author: string;
  diffHunk: string;
  createdAt: string;
}

/** A review that requested changes: its own body, written above its line comments (if any). */
export interface ReviewBody {
  id: number;
  body: string;
  author: string;
  submittedAt: string;
}

/** What a PR's reviewers said: the threads, and the change requests' bodies. */
export interface PullReviews {
  threads: ReviewThread[];
  changeRequests: ReviewBody[];
  /** Who submitted each review that requested changes, standing or since settled (oldest first). */
  changeRequesters?: string[];
}

export interface ReviewThread {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  /** Every comment, oldest first (past MAX_COMMENT_PAGES: its start and its end). */
  comments: ThreadComment[];
  /** Comments between the start and the end of a thread too long to read whole. */
  unread?: number;
}

interface Answer {
  repository: {
    pullRequest: {
      reviewThreads: {
        totalCount?: number;
        pageInfo?: { hasNextPage: boolean; endCursor: string | null };
        nodes: RawThread[];
      };
      reviews: RawReviewPage | null;
    } | null;
  } | null;
}

/** An author's login; a deleted account shows as `ghost`, as on GitHub. */
const loginOf = (author: { login: string } | null) => author?.login ?? 'ghost';

/**
 * The change requests that still stand: each reviewer's latest opinion (approve, request changes,
 * or a dismissal), oldest first, kept when it requests changes. A review keeps its
 * CHANGES_REQUESTED state after the same reviewer approves, so the state alone would work settled
 * requests again.
 */
export function standingChangeRequests<T extends { state: string; author: { login: string } | null }>(
  reviews: readonly T[],
): T[] {
  const latest = new Map<string, T>();
  for (const review of reviews) latest.set(loginOf(review.author).toLowerCase(), review);
  return reviews.filter(
    (review) =>
      review.state === 'CHANGES_REQUESTED' && latest.get(loginOf(review.author).toLowerCase()) === review,
  );
}

/** What a PR holds past the pages read (spam, at that size): logged, never silent. */
function unreadWarning(gh: GitHubClient, what: string, unread: number): void {
  if (unread > 0) gh.log.warn({ unread }, `${what}: ${unread} in the middle left unread`);
}

/** A thread with all its comments: those past its first page are read now (none, mostly). */
async function readThread(gh: GitHubClient, thread: RawThread): Promise<ReviewThread> {
  const { comments, unread } = thread.comments.pageInfo?.hasNextPage
    ? await wholeThread(gh, thread.id, thread.comments)
    : { comments: thread.comments.nodes, unread: 0 };
  unreadWarning(gh, `a review thread of ${comments.length + unread} comments`, unread);
  return {
    id: thread.id,
    isResolved: thread.isResolved,
    isOutdated: thread.isOutdated,
    path: thread.path,
    line: thread.line,
    comments: comments.map((c) => ({
      id: c.databaseId ?? 0,
      body: c.body,
      author: loginOf(c.author),
      diffHunk: c.diffHunk,
      createdAt: c.createdAt,
    })),
    ...(unread > 0 ? { unread } : {}),
  };
}

export function createReviewThreads(gh: GitHubClient) {
  const { owner, name } = gh.repo;
  let viewer: Promise<string> | undefined;
  return {
    /** The login issueloop writes as (a user, or an app's bot): asked once. */
    viewer(): Promise<string> {
      viewer ??= gh
        .call('read who issueloop is on GitHub', () =>
          gh.graphql<{ viewer: { login: string } }>(VIEWER_LOGIN),
        )
        .then((answer) => answer.viewer.login);
      viewer.catch(() => {
        viewer = undefined;
      });
      return viewer;
    },

    async read(pull: number): Promise<PullReviews> {
      const page = (after: string | null) =>
        gh.call(`read the review threads of #${pull}`, () =>
          gh.graphql<Answer>(PULL_REVIEW_THREADS, { owner, name, number: pull, after }),
        );
      const answer = await page(null);
      const found = answer.repository?.pullRequest;
      const threads = [...(found?.reviewThreads.nodes ?? [])];
      let info = found?.reviewThreads.pageInfo;
      for (let pages = 1; info?.hasNextPage && info.endCursor && pages < MAX_THREAD_PAGES; pages++) {
        const next = (await page(info.endCursor)).repository?.pullRequest?.reviewThreads;
        threads.push(...(next?.nodes ?? []));
        info = next?.pageInfo;
      }
      const vars = { owner, name, number: pull };
      if (info?.hasNextPage) {
        const newest = await newestThreads(gh, vars, threads);
        threads.push(...newest.threads);
        unreadWarning(gh, `#${pull} has more review threads than are read`, newest.unread);
      }
      const reviews = await allReviews(gh, vars, found?.reviews ?? { nodes: [] });
      unreadWarning(gh, `#${pull} has more reviews than are read`, reviews.unread);
      // One after another: a long thread's pages are the only requests here, and rarely more than one.
      const read: ReviewThread[] = [];
      for (const thread of threads) read.push(await readThread(gh, thread));
      const changeRequests = standingChangeRequests(reviews.reviews).map((review) => ({
        id: review.databaseId ?? 0,
        body: review.body,
        author: loginOf(review.author),
        submittedAt: review.submittedAt ?? '',
      }));
      const changeRequesters = reviews.reviews
        .filter((review) => review.state === 'CHANGES_REQUESTED')
        .map((review) => loginOf(review.author));
      return {
        changeRequests,
        changeRequesters,
        threads: read,
      };
    },

    /** A comment on the PR's conversation (a review's own body has no thread to reply in). */
    async comment(pull: number, body: string): Promise<void> {
      await gh.call(`comment on pull request #${pull}`, () =>
        gh.rest.issues.createComment({
          owner,
          repo: name,
          issue_number: pull,
          body: `${body}\n\n${REPLY_MARKER}`,
        }),
      );
    },

    async reply(thread: string, body: string): Promise<void> {
      await gh.call('reply to a review thread', () =>
        gh.graphql(REPLY_TO_THREAD, { thread, body: `${body}\n\n${REPLY_MARKER}` }),
      );
    },

    async resolve(thread: string): Promise<void> {
      await gh.call('resolve a review thread', () => gh.graphql(RESOLVE_THREAD, { thread }));
    },
  };
}

export type ReviewThreads = ReturnType<typeof createReviewThreads>;
