import { checksPass } from './checks-state.js';
import type { GitIdentity, GitOrigin } from './git-origin.js';
import { sha1 } from './ids.js';
import { pullShas, requirePull } from './pull-refs.js';
import type { IssueRecord } from './records.js';
import { closingReferences } from './rendered-text.js';
import type { Store } from './store.js';
import type { MergeMethod } from './types.js';

export interface Mergeability {
  mergeable: boolean | null;
  /** GitHub's `mergeable_state`. */
  state: 'dirty' | 'draft' | 'behind' | 'unstable' | 'clean' | 'unknown';
}

/**
 * What `GET /pulls/{n}` says about merging, in GitHub's order of precedence: conflicts (`dirty`,
 * from `git merge-tree` when there is an `origin`), then `draft`, then `behind` when the base's
 * protection requires branches to be up to date (`strictBranches`) and the base has commits the head
 * lacks, then `unstable` when a check or status of the head failed or is still pending, else
 * `clean`. The emulator has no other protection rule, so it never says `blocked`. A closed PR is no
 * longer computed: null and `unknown`.
 */
export function mergeability(store: Store, issue: IssueRecord): Mergeability {
  const pull = requirePull(issue);
  if (issue.state === 'closed') return { mergeable: null, state: 'unknown' };
  const { head, base } = pullShas(store, issue);
  const origin = store.lifecycle.origin;
  if (origin && origin.mergeTree(base, head) === undefined) return { mergeable: false, state: 'dirty' };
  if (pull.draft) return { mergeable: true, state: 'draft' };
  if (
    origin &&
    store.lifecycle.strictBranches.has(pull.baseRef) &&
    origin.commitsBetween(head, base).length > 0
  )
    return { mergeable: true, state: 'behind' };
  return { mergeable: true, state: checksPass(store, head) ? 'clean' : 'unstable' };
}

export interface MergeOptions {
  method: MergeMethod;
  /** The head the caller reviewed; a different one is GitHub's 409. */
  sha?: string;
  title?: string;
  message?: string;
}

export type MergeOutcome = { ok: true; sha: string } | { ok: false; status: 405 | 409; message: string };

export const NOT_MERGEABLE = 'Pull Request is not mergeable';
const BEHIND = 'Head branch is out of date. Review and try the merge again.';
const HEAD_MODIFIED = 'Head branch was modified. Review and try the merge again.';

/** The merger as git records them on GitHub: their noreply address; GitHub itself commits. */
function identities(store: Store, actor: string): { author: GitIdentity; committer: GitIdentity } {
  const user = store.ensureUser(actor);
  const time = Math.floor(store.now() / 1000);
  return {
    author: { name: user.login, email: `${user.id}+${user.login}@users.noreply.github.com`, time },
    committer: { name: 'GitHub', email: 'noreply@github.com', time },
  };
}

/** Each head commit replayed on the base, keeping its author and message; undefined on a conflict. */
function rebase(origin: GitOrigin, base: string, head: string, committer: GitIdentity): string | undefined {
  let tip = base;
  for (const commit of origin.commitsBetween(base, head)) {
    const tree = origin.mergeTree(tip, commit.sha);
    if (tree === undefined) return undefined;
    tip = origin.commitTree(tree, [tip], commit.message.trimEnd(), commit.author, committer);
  }
  return tip;
}

/** Writes the merge into `origin` as GitHub would and moves the base branch; undefined on a conflict. */
function mergeInOrigin(
  store: Store,
  origin: GitOrigin,
  issue: IssueRecord,
  actor: string,
  options: MergeOptions,
): string | undefined {
  const pull = requirePull(issue);
  const { head, base } = pullShas(store, issue);
  const tree = origin.mergeTree(base, head);
  if (tree === undefined) return undefined;
  const { author, committer } = identities(store, actor);
  let sha: string | undefined;
  if (options.method === 'rebase') {
    sha = rebase(origin, base, head, committer);
  } else if (options.method === 'squash') {
    const commits = origin.commitsBetween(base, head).map((c) => `* ${c.message.trim()}`);
    const title = options.title ?? `${issue.title} (#${issue.number})`;
    sha = origin.commitTree(
      tree,
      [base],
      `${title}\n\n${options.message ?? commits.join('\n\n')}`,
      author,
      committer,
    );
  } else {
    const title =
      options.title ?? `Merge pull request #${issue.number} from ${pull.headLabel.replace(':', '/')}`;
    sha = origin.commitTree(
      tree,
      [base, head],
      `${title}\n\n${options.message ?? issue.title}`,
      author,
      committer,
    );
  }
  if (sha !== undefined) origin.updateBranch(pull.baseRef, sha, base);
  return sha;
}

/** The open issues (not PRs) of this repository that a PR body says it closes, read as GitHub renders it. */
export function linkedIssues(store: Store, body: string | null): IssueRecord[] {
  const found: IssueRecord[] = [];
  for (const { owner, repo, number } of closingReferences(body ?? '')) {
    if (owner !== undefined && owner.toLowerCase() !== store.owner.login.toLowerCase()) continue;
    if (repo !== undefined && repo.toLowerCase() !== store.repo.name.toLowerCase()) continue;
    const issue = store.issues.get(number);
    if (issue && !issue.pull && issue.state === 'open' && !found.includes(issue)) found.push(issue);
  }
  return found;
}

/** The `merged` event, then `closed`; the issues it closes get a `closed` event naming the merge commit. */
function recordMerge(store: Store, issue: IssueRecord, actor: string, sha: string): void {
  const pull = requirePull(issue);
  pull.merged = { at: store.timestamp(), by: store.ensureUser(actor).login, sha };
  const id = store.ids.next('event');
  store.events.push({
    id,
    nodeId: store.ids.node('ME', `event:${id}`),
    issueNumber: issue.number,
    event: 'merged',
    actor: pull.merged.by,
    commitId: sha,
    createdAt: pull.merged.at,
  });
  store.setIssueState(issue, 'closed', actor);
  // GitHub closes linked issues only when the PR lands on the default branch.
  if (pull.baseRef !== 'main') return;
  for (const linked of linkedIssues(store, issue.body)) {
    store.setIssueState(linked, 'closed', actor, 'completed');
    const closed = store.events.findLast((e) => e.issueNumber === linked.number && e.event === 'closed');
    if (closed) closed.commitId = sha;
  }
}

/**
 * Merges an open PR: the checks GitHub makes (still open, head unchanged, no conflict), the merge
 * itself (really, in `origin`, else a stand-in sha), then the PR and its linked issues closed.
 */
export function mergePull(
  store: Store,
  issue: IssueRecord,
  actor: string,
  options: MergeOptions,
): MergeOutcome {
  if (issue.state === 'closed') return { ok: false, status: 405, message: NOT_MERGEABLE };
  const { head } = pullShas(store, issue);
  if (options.sha !== undefined && options.sha !== head)
    return { ok: false, status: 409, message: HEAD_MODIFIED };
  if (mergeability(store, issue).state === 'behind') return { ok: false, status: 405, message: BEHIND };
  const origin = store.lifecycle.origin;
  const sha = origin
    ? mergeInOrigin(store, origin, issue, actor, options)
    : sha1(`merge:${issue.number}:${head}:${options.method}`);
  if (sha === undefined) return { ok: false, status: 405, message: NOT_MERGEABLE };
  recordMerge(store, issue, actor, sha);
  return { ok: true, sha };
}

/** Closes a PR without merging; its commits stay the ones it had, as GitHub shows them. */
export function closePull(store: Store, issue: IssueRecord, actor: string): void {
  pullShas(store, issue);
  store.setIssueState(issue, 'closed', actor);
}
