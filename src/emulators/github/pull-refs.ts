import { sha1 } from './ids.js';
import type { IssueRecord, PullRecord } from './records.js';
import type { Store } from './store.js';

/** The commits of pull requests and branches: real ones from `origin` when there is one, stand-ins otherwise. */

const SHA = /^[0-9a-f]{40}$/;

/** The stand-in commit of `owner:branch` when there is no `origin`: stable, so ETags and tests can rely on it. */
export function fakeSha(label: string): string {
  return sha1(`ref:${label}`);
}

/** Whether the head branch lives in the repository itself (a fork's does not, and `origin` cannot see it). */
function ownHead(store: Store, pull: PullRecord): boolean {
  return pull.headLabel.toLowerCase().startsWith(`${store.owner.login.toLowerCase()}:`);
}

export function requirePull(issue: IssueRecord): PullRecord {
  if (!issue.pull) throw new Error(`emulator: #${issue.number} is not a pull request`);
  return issue.pull;
}

/**
 * The head and base commits of a PR. An open one follows its branches, and a head seen to have
 * moved bumps `updated_at` as a push does on GitHub; a closed one keeps the commits it closed with.
 * A branch `origin` does not have keeps the last commit seen, like a deleted head branch on GitHub.
 */
export function pullShas(store: Store, issue: IssueRecord): { head: string; base: string } {
  const pull = requirePull(issue);
  if (issue.state === 'closed' && pull.shas) return pull.shas;
  const origin = store.lifecycle.origin;
  const liveHead = origin && ownHead(store, pull) ? origin.branchSha(pull.headRef) : undefined;
  const liveBase = origin?.branchSha(pull.baseRef);
  const shas = {
    head: liveHead ?? pull.shas?.head ?? fakeSha(pull.headLabel),
    base: liveBase ?? pull.shas?.base ?? fakeSha(`${store.owner.login}:${pull.baseRef}`),
  };
  if (pull.shas && pull.shas.head !== shas.head) issue.updatedAt = store.timestamp();
  pull.shas = shas;
  return shas;
}

/** The tip of a branch: from `origin` when there is one (undefined for a missing branch), else the stand-in. */
export function branchSha(store: Store, branch: string): string | undefined {
  const origin = store.lifecycle.origin;
  return origin ? origin.branchSha(branch) : fakeSha(`${store.owner.login}:${branch}`);
}

/**
 * The commit a `/commits/{ref}/…` route names: a sha, or a branch (`heads/x`, `refs/heads/x` too);
 * with `origin`, anything git resolves (tags too) and nothing else, for GitHub's 422.
 */
export function resolveCommit(store: Store, ref: string): string | undefined {
  const origin = store.lifecycle.origin;
  if (origin) return origin.resolve(ref);
  if (SHA.test(ref)) return ref;
  return branchSha(store, ref.replace(/^(refs\/)?heads\//, ''));
}

/** The open PRs whose head is `sha`, for the `pull_requests` of a check run. */
export function pullsAt(store: Store, sha: string): IssueRecord[] {
  return [...store.issues.values()].filter(
    (i) => i.pull && i.state === 'open' && pullShas(store, i).head === sha,
  );
}
