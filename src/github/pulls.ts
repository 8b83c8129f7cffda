import { type GitHubClient, repoPath } from './client.js';
import { getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';
import { gql } from './gql.js';

export const MARK_READY = gql`
  mutation MarkReadyForReview($id: ID!) {
    markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { id isDraft } }
  }
`;

/**
 * Draft pull requests from `issueloop/issue-<n>` (own-branch.ts), idempotent: an open PR for the
 * branch is updated (title and body), never duplicated, also when two attempts race to create it.
 */
export { issueBranch } from './own-branch.js';

export interface PullRequestRef {
  number: number;
  url: string;
  nodeId: string;
  draft: boolean;
  state: string;
  headRef: string;
  body: string;
}

export interface OpenPullRequestInput {
  branch: string;
  title: string;
  body: string;
  /** Defaults to the repository's default branch. */
  base?: string;
  draft?: boolean;
}

function toRef(raw: unknown): PullRequestRef {
  const pr = raw as {
    number: number;
    html_url: string;
    node_id: string;
    draft?: boolean;
    state: string;
    head: { ref: string };
    body?: string | null;
  };
  return {
    number: pr.number,
    url: pr.html_url,
    nodeId: pr.node_id,
    draft: pr.draft === true,
    state: pr.state,
    headRef: pr.head.ref,
    body: pr.body ?? '',
  };
}

export function createPullRequestOperations(gh: GitHubClient, cache: EtagCache) {
  const { owner, name: repo } = gh.repo;

  async function findOpen(branch: string): Promise<PullRequestRef | undefined> {
    const found = await gh.call(`find the pull request of ${branch}`, () =>
      gh.rest.pulls.list({ owner, repo, state: 'open', head: `${owner}:${branch}`, per_page: 10 }),
    );
    const first = found.data[0];
    return first ? toRef(first) : undefined;
  }

  async function update(
    number: number,
    input: OpenPullRequestInput,
  ): Promise<PullRequestRef & { created: boolean }> {
    const res = await gh.call(`update pull request #${number}`, () =>
      gh.rest.pulls.update({ owner, repo, pull_number: number, title: input.title, body: input.body }),
    );
    return { ...toRef(res.data), created: false };
  }

  return {
    findOpen,
    /** Rewrites the title and body of a PR known to be open (a follow-up's, checked just before its push). */
    update,

    /** Asks `reviewers` (logins) for a review; nothing is asked with none. */
    async requestReviewers(number: number, reviewers: readonly string[]): Promise<void> {
      if (reviewers.length === 0) return;
      await gh.call(`request reviewers on #${number}`, () =>
        gh.rest.pulls.requestReviewers({ owner, repo, pull_number: number, reviewers: [...reviewers] }),
      );
    },

    /** A draft PR made ready for review (GraphQL: REST cannot change `draft`). */
    async markReady(nodeId: string): Promise<void> {
      await gh.call('mark a pull request ready for review', () => gh.graphql(MARK_READY, { id: nodeId }));
    },

    /** The repository's default branch (conditional: free once cached). */
    async defaultBranch(): Promise<string> {
      const url = repoPath(gh.repo);
      const page = await getConditional(
        gh,
        cache,
        url,
        (raw) => String((raw as { default_branch?: unknown }).default_branch ?? 'main'),
        'read the repository',
      );
      return page.data;
    },

    async get(number: number): Promise<PullRequestRef> {
      const res = await gh.call(`read pull request #${number}`, () =>
        gh.rest.pulls.get({ owner, repo, pull_number: number }),
      );
      return toRef(res.data);
    },

    /** Opens the draft PR for `branch`, or updates the open one: `created` says which. */
    async openOrUpdate(input: OpenPullRequestInput): Promise<PullRequestRef & { created: boolean }> {
      const existing = await findOpen(input.branch);
      if (existing) {
        return update(existing.number, input);
      }
      const base = input.base ?? (await this.defaultBranch());
      try {
        const res = await gh.call(`open a pull request from ${input.branch}`, () =>
          gh.rest.pulls.create({
            owner,
            repo,
            head: input.branch,
            base,
            title: input.title,
            body: input.body,
            draft: input.draft ?? true,
          }),
        );
        return { ...toRef(res.data), created: true };
      } catch (err) {
        // 422 "A pull request already exists": another attempt won the race; update that one.
        const raced = httpStatusOf(err) === 422 ? await findOpen(input.branch) : undefined;
        if (!raced) throw err;
        return update(raced.number, input);
      }
    },
  };
}

export type PullRequestOperations = ReturnType<typeof createPullRequestOperations>;
