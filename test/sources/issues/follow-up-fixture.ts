import type { PullDetail } from '../../../src/github/pr-watch.js';
import type { ThreadRequest } from '../../../src/sources/issues/review-requests.js';

/** An open, mergeable draft PR of issueloop's for issue 3, as the PR watch reads it, with `changes`. */
export const pullDetail = (changes: Partial<PullDetail> = {}): PullDetail => ({
  number: 7,
  issue: 3,
  url: 'https://github.test/octo-org/widgets/pull/7',
  nodeId: 'PR_7',
  state: 'open',
  merged: false,
  draft: true,
  headRef: 'issueloop/issue-3',
  headSha: '0123456789abcdef0123456789abcdef01234567',
  baseRef: 'main',
  updatedAt: '2026-11-25T00:00:00Z',
  mergeable: true,
  mergeableState: 'clean',
  followups: 0,
  answeredReviews: [],
  reviewComments: 1,
  ...changes,
});

export const pull = pullDetail();

/** A review thread of one writer's comment on it. */

export const thread = (over: Partial<ThreadRequest> = {}): ThreadRequest => ({
  kind: 'thread',
  threadId: 'T1',
  path: 'greet.js',
  line: 4,
  diffHunk: '@@ -1,4 +1,4 @@\n-hello\n+hi',
  comments: [{ id: 1, author: 'maint', body: 'Say hello.', diffHunk: '', createdAt: '2026-11-25T00:00:00Z' }],
  leftOut: 0,
  ...over,
});
