import type { GitHubClient } from './client.js';
import { gql } from './gql.js';

/**
 * The rest of a long review thread. The PR's query reads each thread's first 100 comments; a thread
 * with more is paged here from where that stopped, so a maintainer's comment is seen however many
 * replies follow it (reading only a thread's last comments let 20 outsider replies push a request out
 * of sight). Each page is one query of 1 point.
 */

/** Comments per page: GitHub's largest. */
export const COMMENT_PAGE = 100;

/**
 * Pages read from a thread's start (the first one in the PR's query): 2,000 comments. Past that the
 * thread's last page is read too, for issueloop's latest answer, and the comments between are counted
 * as unread and logged: a thread that long is spam, and reading it to the end would let anyone spend
 * issueloop's rate limit.
 */
export const MAX_COMMENT_PAGES = 20;

export interface RawComment {
  databaseId: number | null;
  body: string;
  author: { login: string } | null;
  diffHunk: string;
  createdAt: string;
}

export interface RawCommentPage {
  totalCount?: number;
  pageInfo?: { hasNextPage: boolean; endCursor: string | null };
  nodes: RawComment[];
}

export const THREAD_COMMENTS = gql`
  query ThreadComments($thread: ID!, $after: String) {
    node(id: $thread) {
      ... on PullRequestReviewThread {
        comments(first: 100, after: $after) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { databaseId body author { login } diffHunk createdAt }
        }
      }
    }
  }
`;

export const THREAD_END = gql`
  query ThreadEnd($thread: ID!) {
    node(id: $thread) {
      ... on PullRequestReviewThread {
        comments(last: 100) {
          totalCount
          nodes { databaseId body author { login } diffHunk createdAt }
        }
      }
    }
  }
`;

interface NodeAnswer {
  node: { comments?: RawCommentPage } | null;
}

/** Every comment of a thread, oldest first, from its first page on; `unread` past MAX_COMMENT_PAGES. */
export async function wholeThread(
  gh: GitHubClient,
  thread: string,
  first: RawCommentPage,
): Promise<{ comments: RawComment[]; unread: number }> {
  const comments = [...first.nodes];
  let total = first.totalCount ?? comments.length;
  let info = first.pageInfo;
  for (let pages = 1; info?.hasNextPage && info.endCursor && pages < MAX_COMMENT_PAGES; pages++) {
    const after = info.endCursor;
    const answer = await gh.call('read the rest of a review thread', () =>
      gh.graphql<NodeAnswer>(THREAD_COMMENTS, { thread, after }),
    );
    const next = answer.node?.comments;
    comments.push(...(next?.nodes ?? []));
    total = next?.totalCount ?? total;
    info = next?.pageInfo;
  }
  if (!info?.hasNextPage) return { comments, unread: 0 };
  const answer = await gh.call('read the end of a review thread', () =>
    gh.graphql<NodeAnswer>(THREAD_END, { thread }),
  );
  const end = answer.node?.comments;
  const seen = new Set(comments.map((c) => c.databaseId));
  const tail = (end?.nodes ?? []).filter((c) => c.databaseId === null || !seen.has(c.databaseId));
  total = end?.totalCount ?? total;
  return { comments: [...comments, ...tail], unread: Math.max(0, total - comments.length - tail.length) };
}
