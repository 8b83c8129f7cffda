import pLimit from 'p-limit';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { CheckSummary, OwnPull, PullDetail, PullWatch } from '../../github/pr-watch.js';
import { type CheckPolicy, checkPolicy } from '../../github/relied-checks.js';
import { decidePull, type PullDecision } from './pull-decide.js';
import type { ReviewRequest } from './review-requests.js';

/** Open PRs read at once. */
const READ_CONCURRENCY = 4;

/** One of issueloop's open pull requests as a round read it, and what it needs next. */
export interface OpenPullState {
  pull: PullDetail;
  checks: CheckSummary;
  /** Review threads waiting for issueloop (from people with write access). */
  reviews: ReviewRequest[];
  decision: PullDecision;
}

/** The unanswered review requests of a PR (the caller reads threads only when the PR changed). */
export type ReadReviews = (pull: PullDetail) => Promise<ReviewRequest[]>;

/**
 * The open PRs whose issues await review: each one's mergeability and the checks of its head commit
 * (three conditional requests, all 304 while nothing changed), judged over the checks `pr.ci_checks`
 * relies on (with `required`: two more per base branch, once a sweep), the review threads waiting for
 * an answer, and the decision. A PR that cannot be read now is left out of this round.
 */
export async function readOpenPulls(
  watch: Pick<PullWatch, 'detail' | 'checks' | 'requiredChecks'>,
  pulls: readonly OwnPull[],
  options: { log: Log; redact: Redactor; config: Pick<Config, 'pr'>; reviews?: ReadReviews | undefined },
): Promise<OpenPullState[]> {
  const policyFor = policies(watch, options);
  const read = async (own: OwnPull): Promise<OpenPullState | undefined> => {
    try {
      const pull = await watch.detail(own.number);
      const checks = await watch.checks(pull.headSha, await policyFor(pull.baseRef));
      const reviews = options.reviews ? await options.reviews(pull) : [];
      const decision = decidePull(pull, checks, { unanswered: reviews.length });
      return { pull, checks, reviews, decision };
    } catch (err) {
      options.log.warn(
        { err: options.redact((err as Error).message), pr: own.number },
        `could not read pull request #${own.number}`,
      );
      return undefined;
    }
  };
  // A few PRs at a time: reads are not paced, and each PR waits on three round trips.
  const limit = pLimit(READ_CONCURRENCY);
  const states = await Promise.all(pulls.map((own) => limit(() => read(own))));
  return states.filter((state): state is OpenPullState => state !== undefined);
}

/**
 * `pr.ci_checks` for each base branch, read once per sweep: `required` asks GitHub for the branch's
 * required checks (what the token cannot read is logged once per sweep and left out). A failed read
 * is not retried within the sweep: its PRs are left out of this round.
 */
function policies(
  watch: Pick<PullWatch, 'requiredChecks'>,
  options: { log: Log; config: Pick<Config, 'pr'> },
): (base: string) => Promise<CheckPolicy> {
  const entries = options.config.pr.ci_checks;
  const byBase = new Map<string, Promise<CheckPolicy>>();
  return (base) => {
    let policy = byBase.get(base);
    if (!policy) {
      policy = entries.includes('required')
        ? watch.requiredChecks(base).then(({ checks, unreadable }) => {
            if (unreadable.length > 0) {
              options.log.debug(
                { base, unreadable },
                `the required checks of ${base} from ${unreadable.join(' and ')} are not readable with this token (or there are none): CI follow-ups rely on the other pr.ci_checks entries`,
              );
            }
            return checkPolicy(entries, checks);
          })
        : Promise.resolve(checkPolicy(entries));
      byBase.set(base, policy);
    }
    return policy;
  };
}

/**
 * One line for people and the ledger: `checks failed (test, lint)`, `conflicts with main`, …, and
 * the checks `pr.ci_checks` does not rely on, when there are any: `…; ignored 1 check (lint: evil-app, failure)`.
 */
export function describeDecision(state: OpenPullState): string {
  const { ignored } = state.checks;
  if (ignored.length === 0) return describeNeed(state);
  const shown = ignored.slice(0, 5).map((check) => `${check.name}: ${check.source}, ${check.state}`);
  const more = ignored.length > shown.length ? `, and ${ignored.length - shown.length} more` : '';
  const count = `${ignored.length} ${ignored.length === 1 ? 'check' : 'checks'}`;
  return `${describeNeed(state)}; ignored ${count} (${shown.join('; ')}${more})`;
}

function describeNeed(state: OpenPullState): string {
  const { decision, pull } = state;
  switch (decision.kind) {
    case 'wait':
      return decision.why;
    case 'conflict':
      return `conflicts with ${pull.baseRef}`;
    case 'behind':
      return `behind ${pull.baseRef}`;
    case 'ci_failed':
      return `checks failed (${decision.failed.map((f) => f.name).join(', ')})`;
    case 'changes_requested':
      return `${decision.threads} review ${decision.threads === 1 ? 'thread' : 'threads'} unanswered`;
    case 'green':
      return state.checks.state === 'none' ? 'no checks; mergeable' : 'checks passed; mergeable';
  }
}

/**
 * Each issue's current pull request: its open one, else the newest closed or merged one. A PR closed
 * before the issue was worked again is history: booking it again would undo the new attempt.
 */
export function currentPulls(pulls: readonly OwnPull[]): OwnPull[] {
  const byIssue = new Map<number, OwnPull>();
  for (const pull of pulls) {
    const known = byIssue.get(pull.issue);
    // PR numbers only grow: the newest PR of the branch is the current one (an old one commented on
    // lately is not).
    const newer =
      !known ||
      (pull.state === 'open' && known.state !== 'open') ||
      (pull.state === known.state && pull.number > known.number);
    if (newer) byIssue.set(pull.issue, pull);
  }
  return [...byIssue.values()];
}
