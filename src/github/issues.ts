import type { GitHubClient } from './client.js';
import { type BacklogIssue, toBacklogIssue } from './issue-shape.js';

export interface IssueState extends BacklogIssue {
  state: 'open' | 'closed';
}

/** Reads one issue as it is now: for the session's read-back, never from the ETag cache. */
export function createIssueOperations(gh: GitHubClient) {
  const { owner, name: repo } = gh.repo;
  return {
    async get(number: number): Promise<IssueState> {
      const res = await gh.call(`read issue #${number}`, () =>
        gh.rest.issues.get({ owner, repo, issue_number: number }),
      );
      const state = (res.data as { state?: unknown }).state === 'closed' ? 'closed' : 'open';
      return { ...toBacklogIssue(res.data), state };
    },
  };
}

export type IssueOperations = ReturnType<typeof createIssueOperations>;
