import type { GitHubClient } from './client.js';
import { gql } from './gql.js';

/**
 * The review threads of a pull request (GraphQL: REST has no threads, nor whether one is resolved),
 * and issueloop's answers to them. Read only when the PR changed since the last read (its
 * `updated_at`), so an idle round asks nothing. Cost: 1 point per query (50 threads × 20 comments).
 */
export const PULL_REVIEW_THREADS = gql`
  query PullReviewThreads($owner: String!, $name: String!, $number: Int!) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        reviewThreads(first: 50) {
          nodes {
            id
            isResolved
            isOutdated
            path
            line
            comments(first: 20) {
              nodes { databaseId body author { login } diffHunk createdAt }
            }
          }
        }
      }
    }
  }
`;

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

export interface ReviewThread {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  comments: ThreadComment[];
}

interface Answer {
  repository: {
    pullRequest: {
      reviewThreads: {
        nodes: Array<{
          id: string;
          isResolved: boolean;
          isOutdated: boolean;
          path: string;
          line: number | null;
          comments: {
            nodes: Array<{
              databaseId: number | null;
              body: string;
              author: { login: string } | null;
              diffHunk: string;
              createdAt: string;
            }>;
          };
        }>;
      };
    } | null;
  } | null;
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

    async read(pull: number): Promise<ReviewThread[]> {
      const answer = await gh.call(`read the review threads of #${pull}`, () =>
        gh.graphql<Answer>(PULL_REVIEW_THREADS, { owner, name, number: pull }),
      );
      const threads = answer.repository?.pullRequest?.reviewThreads.nodes ?? [];
      return threads.map((thread) => ({
        id: thread.id,
        isResolved: thread.isResolved,
        isOutdated: thread.isOutdated,
        path: thread.path,
        line: thread.line,
        comments: thread.comments.nodes.map((c) => ({
          id: c.databaseId ?? 0,
          body: c.body,
          // A deleted account shows as `ghost`, as on GitHub.
          author: c.author?.login ?? 'ghost',
          diffHunk: c.diffHunk,
          createdAt: c.createdAt,
        })),
      }));
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
