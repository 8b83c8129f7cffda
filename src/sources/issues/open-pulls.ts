import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { CheckSummary, OwnPull, PullDetail, PullWatch } from '../../github/pr-watch.js';
import { decidePull, type PullDecision } from './pull-decide.js';

/** One of issueloop's open pull requests as a round read it, and what it needs next. */
export interface OpenPullState {
  pull: PullDetail;
  checks: CheckSummary;
  decision: PullDecision;
}

/**
 * The open PRs whose issues await review: each one's mergeability and the checks of its head commit
 * (three conditional requests, all 304 while nothing changed), and the decision. A PR that cannot be
 * read now is left out of this round.
 */
export async function readOpenPulls(
  watch: Pick<PullWatch, 'detail' | 'checks'>,
  pulls: readonly OwnPull[],
  options: { log: Log; redact: Redactor },
): Promise<OpenPullState[]> {
  const states: OpenPullState[] = [];
  for (const own of pulls) {
    try {
      const pull = await watch.detail(own.number);
      const checks = await watch.checks(pull.headSha);
      // Review threads come with the follow-up source; until then nothing counts as unanswered.
      states.push({ pull, checks, decision: decidePull(pull, checks, { unanswered: 0 }) });
    } catch (err) {
      options.log.warn(
        { err: options.redact((err as Error).message), pr: own.number },
        `could not read pull request #${own.number}`,
      );
    }
  }
  return states;
}

/** One line for people and the ledger: `checks failed (test, lint)`, `conflicts with main`, … */
export function describeDecision(state: OpenPullState): string {
  const { decision, pull } = state;
  switch (decision.kind) {
    case 'wait':
      return decision.why;
    case 'conflict':
      return `conflicts with ${pull.baseRef}`;
    case 'ci_failed':
      return `checks failed (${decision.failed.map((f) => f.name).join(', ')})`;
    case 'changes_requested':
      return `${decision.threads} review ${decision.threads === 1 ? 'thread' : 'threads'} unanswered`;
    case 'green':
      return state.checks.state === 'none' ? 'no checks; mergeable' : 'checks passed; mergeable';
  }
}
