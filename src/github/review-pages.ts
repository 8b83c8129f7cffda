import type { GitHubClient } from './client.js';
import { gql } from './gql.js';
import type { RawCommentPage } from './thread-comments.js';

/**
 * The rest of a PR's reviews and threads past the first page of the PR's query. Anyone who can read a
 * public repository can approve a PR or open review threads on it, so a maintainer's change request
 * must not depend on how many others came before it: the reviews are paged to their end (1,000, then
 * the newest 100), the threads to 500 (then the newest 50); what lies between is logged as unread.
 */

/** Pages of 100 reviews read from the start (the first one in the PR's query). */
export const MAX_REVIEW_PAGES = 10;

export interface RawReview {
  databaseId: number | null;
  body: string;
  state: string;
  author: { login: string } | null;
  submittedAt: string | null;
}

export interface RawReviewPage {
  totalCount?: number;
  pageInfo?: { hasNextPage: boolean; endCursor: string | null };
  nodes: RawReview[];
}

export interface RawThread {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  comments: RawCommentPage;
}

export const PULL_REVIEWS = gql`
  query PullReviews($owner: String!, $name: String!, $number: Int!, $after: String) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        reviews(first: 100, after: $after, states: [APPROVED, CHANGES_REQUESTED, DISMISSED]) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { databaseId body state author { login } submittedAt }
        }
      }
    }
  }
`;

export const PULL_REVIEWS_END = gql`
  query PullReviewsEnd($owner: String!, $name: String!, $number: Int!) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        reviews(last: 100, states: [APPROVED, CHANGES_REQUESTED, DISMISSED]) {
          totalCount
          nodes { databaseId body state author { login } submittedAt }
        }
      }
    }
  }
`;

export const PULL_THREADS_END = gql`
  query PullReviewThreadsEnd($owner: String!, $name: String!, $number: Int!) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        reviewThreads(last: 50) {
          totalCount
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
      }
    }
  }
`;

export interface PullVars {
  owner: string;
  name: string;
  number: number;
}

interface Answer<K extends string, T> {
  repository: { pullRequest: { [key in K]?: T } | null } | null;
}

/** Every review in the states asked for, oldest first, from the PR query's first page on. */
export async function allReviews(
  gh: GitHubClient,
  vars: PullVars,
  first: RawReviewPage,
): Promise<{ reviews: RawReview[]; unread: number }> {
  const reviews = [...first.nodes];
  let info = first.pageInfo;
  let total = first.totalCount ?? reviews.length;
  for (let pages = 1; info?.hasNextPage && info.endCursor && pages < MAX_REVIEW_PAGES; pages++) {
    const after = info.endCursor;
    const answer = await gh.call(`read the reviews of #${vars.number}`, () =>
      gh.graphql<Answer<'reviews', RawReviewPage>>(PULL_REVIEWS, { ...vars, after }),
    );
    const next = answer.repository?.pullRequest?.reviews;
    reviews.push(...(next?.nodes ?? []));
    total = next?.totalCount ?? total;
    info = next?.pageInfo;
  }
  if (!info?.hasNextPage) return { reviews, unread: 0 };
  const answer = await gh.call(`read the latest reviews of #${vars.number}`, () =>
    gh.graphql<Answer<'reviews', RawReviewPage>>(PULL_REVIEWS_END, { ...vars }),
  );
  const end = answer.repository?.pullRequest?.reviews;
  const tail = newOnes(reviews, end?.nodes ?? [], (r) => r.databaseId);
  total = end?.totalCount ?? total;
  return { reviews: [...reviews, ...tail], unread: Math.max(0, total - reviews.length - tail.length) };
}

/** The newest 50 threads, for a PR whose threads go past what is paged from the start. */
export async function newestThreads(
  gh: GitHubClient,
  vars: PullVars,
  read: readonly RawThread[],
): Promise<{ threads: RawThread[]; unread: number }> {
  const answer = await gh.call(`read the latest review threads of #${vars.number}`, () =>
    gh.graphql<Answer<'reviewThreads', { totalCount?: number; nodes: RawThread[] }>>(PULL_THREADS_END, {
      ...vars,
    }),
  );
  const end = answer.repository?.pullRequest?.reviewThreads;
  const tail = newOnes(read, end?.nodes ?? [], (t) => t.id);
  const total = end?.totalCount ?? read.length + tail.length;
  return { threads: tail, unread: Math.max(0, total - read.length - tail.length) };
}

function newOnes<T, K>(known: readonly T[], more: readonly T[], key: (item: T) => K | null): T[] {
  const seen = new Set(known.map(key));
  return more.filter((item) => key(item) === null || !seen.has(key(item)));
}
