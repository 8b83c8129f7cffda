import type { GitHubClient } from './client.js';
import { type BacklogIssue, toBacklogIssue } from './issue-shape.js';

export interface IssueState extends BacklogIssue {
  state: 'open' | 'closed';
  /** Who closed it last (GitHub's `closed_by`), when it is closed and GitHub says. */
  closedBy?: string;
}

/** Reads one issue as it is now: for the session's read-back, never from the ETag cache. */
export function createIssueOperations(gh: GitHubClient) {
  const { owner, name: repo } = gh.repo;
  return {
    async get(number: number): Promise<IssueState> {
      const res = await gh.call(`read issue #${number}`, () =>
        gh.rest.issues.get({ owner, repo, issue_number: number }),
      );
      const data = res.data as { state?: unknown; closed_by?: { login?: unknown } | null };
      const state = data.state === 'closed' ? 'closed' : 'open';
      const by = state === 'closed' ? data.closed_by?.login : undefined;
      return {
        ...toBacklogIssue(res.data),
        state,
        ...(typeof by === 'string' && by ? { closedBy: by } : {}),
      };
    },
  };
}

export type IssueOperations = ReturnType<typeof createIssueOperations>;
