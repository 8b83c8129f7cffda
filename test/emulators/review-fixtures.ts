import { afterEach, beforeEach } from 'vitest';
import { clockedEmulator, graphql, octokit } from './emulator-fixtures.js';
import { type OriginRepo, originRepo } from './origin-repo.js';

/** The review-thread documents, as the brief fixes them, and a reviewed PR on a real bare repository. */

export const THREADS = `query Threads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      id number state merged mergeable headRefName headRefOid baseRefName isDraft updatedAt reviewDecision
      reviewThreads(first: 50, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line
          comments(first: 50) {
            nodes { id databaseId body author { login } authorAssociation diffHunk createdAt replyTo { databaseId } }
          }
        }
      }
    }
  }
}`;
export const RESOLVE = `mutation Resolve($thread: ID!) { resolveReviewThread(input: { threadId: $thread }) { thread { id isResolved } } }`;
export const REPLY = `mutation Reply($thread: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: { pullRequestReviewThreadId: $thread, body: $body }) { comment { id databaseId body } }
}`;

export interface ThreadsData {
  data: {
    repository: {
      pullRequest: {
        state: string;
        mergeable: string;
        headRefOid: string;
        updatedAt: string;
        reviewDecision: string | null;
        reviewThreads: {
          totalCount: number;
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
          nodes: Array<{
            id: string;
            isResolved: boolean;
            isOutdated: boolean;
            path: string;
            line: number | null;
            comments: {
              nodes: Array<{ databaseId: number; body: string; replyTo: { databaseId: number } | null }>;
            };
          }>;
        };
      };
    };
  };
}

/** A PR from `feature` by the default bot, reviewed by alice with one line comment that octocat answered. */
async function reviewed(repo: OriginRepo, options: { private?: boolean }) {
  const clocked = clockedEmulator({ origin: repo.origin, ...options });
  const { emulator } = clocked;
  emulator.setPermission('alice', 'write');
  const pr = await octokit(emulator).rest.pulls.create({
    owner: 'octo-org',
    repo: 'widgets',
    head: 'feature',
    base: 'main',
    title: 'Shout',
  });
  clocked.advance(60_000);
  const review = emulator.addReview(pr.data.number, {
    author: 'alice',
    state: 'CHANGES_REQUESTED',
    body: 'Not so loud.',
    comments: [{ path: 'world.txt', line: 3, body: 'Why shout?' }],
  });
  const [root = 0] = review.commentIds;
  const reply = emulator.addReviewReply(pr.data.number, root, { author: 'octocat', body: 'Emphasis.' });
  const vars = { owner: 'octo-org', name: 'widgets', number: pr.data.number };
  const threads = async (token?: string) => (await graphql<ThreadsData>(emulator, THREADS, vars, token)).json;
  return { ...clocked, number: pr.data.number, review, root, reply, threads };
}

/**
 * For each test of the calling file: a bare repository whose `feature` branch changes line 3 of
 * world.txt (`head()` is its commit), and `reviewed()` to open and review a PR from it.
 */
export function withReviewedOrigin() {
  let repo: OriginRepo | undefined;
  let head = '';
  beforeEach(async () => {
    repo = await originRepo({ 'world.txt': 'one\ntwo\nthree\nfour\nfive\n' });
    head = await repo.commitOn('feature', { 'world.txt': 'one\ntwo\nTHREE\nfour\nfive\n' }, 'Shout three');
  });
  afterEach(async () => {
    await repo?.cleanup();
  });
  const origin = () => {
    if (!repo) throw new Error('setup: no origin outside a test');
    return repo;
  };
  return {
    origin,
    head: () => head,
    reviewed: (options: { private?: boolean } = {}) => reviewed(origin(), options),
  };
}
