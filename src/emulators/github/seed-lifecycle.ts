import { addCheckRun, addStatus, updateCheckRun } from './checks-state.js';
import { closePull, mergePull } from './pull-merge.js';
import type { IssueRecord } from './records.js';
import { addReply, addReview, reviewCommentsOf } from './reviews-state.js';
import type { Store } from './store.js';
import type { GitHubEmulator } from './types.js';

type LifecycleSeeding = Pick<
  GitHubEmulator,
  | 'mergePull'
  | 'closePull'
  | 'requireUpToDate'
  | 'requireStatusChecks'
  | 'addCheckRun'
  | 'updateCheckRun'
  | 'addStatus'
  | 'addReview'
  | 'addReviewReply'
>;

function pullOf(store: Store, number: number): IssueRecord {
  const issue = store.issues.get(number);
  if (!issue?.pull) throw new Error(`emulator: no pull request #${number}`);
  return issue;
}

/**
 * What happens to a pull request outside the client under test: a maintainer merges or closes it,
 * CI reports checks and statuses, reviewers review and reply. Misuse throws, naming the mistake.
 */
export function lifecycleSeeding(store: Store, defaultLogin: string): LifecycleSeeding {
  return {
    mergePull(number, actor, { method = 'merge' } = {}) {
      const issue = pullOf(store, number);
      if (issue.state === 'open' && issue.pull) issue.pull.draft = false;
      const outcome = mergePull(store, issue, actor, { method });
      if (!outcome.ok) throw new Error(`emulator: cannot merge #${number}: ${outcome.message}`);
      return outcome.sha;
    },
    closePull(number, actor) {
      const issue = pullOf(store, number);
      if (issue.state === 'closed') throw new Error(`emulator: #${number} is already closed`);
      closePull(store, issue, actor);
    },
    requireUpToDate(branch) {
      store.lifecycle.strictBranches.add(branch);
    },
    requireStatusChecks(branch, checks, via = 'protection') {
      const required = store.lifecycle.requiredChecks.get(branch) ?? { protection: [], rulesets: [] };
      required[via === 'protection' ? 'protection' : 'rulesets'].push(...checks.map((c) => ({ ...c })));
      store.lifecycle.requiredChecks.set(branch, required);
    },
    addCheckRun(seed) {
      const run = addCheckRun(store, seed);
      return { id: run.id, jobId: run.id };
    },
    updateCheckRun: (id, changes) => updateCheckRun(store, id, changes),
    addStatus: (refOrSha, seed) => void addStatus(store, refOrSha, seed, defaultLogin),
    addReview(number, seed) {
      const { review, comments } = addReview(store, pullOf(store, number), seed);
      return { reviewId: review.id, commentIds: comments.map((c) => c.id) };
    },
    addReviewReply(number, inReplyTo, seed) {
      const issue = pullOf(store, number);
      const to = reviewCommentsOf(store, number).find((c) => c.id === inReplyTo);
      if (!to) throw new Error(`emulator: no review comment ${inReplyTo} on #${number}`);
      return addReply(store, issue, to, seed).id;
    },
  };
}
