import type { CheckSummary, FailedCheck, PullDetail } from '../../github/pr-watch.js';

/**
 * What one of issueloop's open pull requests needs next, from what a round read of it. Merged and
 * closed PRs are booked by the sweep; this is for the open ones.
 */
export type PullDecision =
  /** Checks still running, or GitHub still computing mergeability: nothing to do yet. */
  | { kind: 'wait'; why: string }
  /** The base moved and the branch conflicts with it. */
  | { kind: 'conflict' }
  /** The base moved and branch protection wants the branch up to date with it before a merge. */
  | { kind: 'behind' }
  /** Every check completed and at least one failed. */
  | { kind: 'ci_failed'; failed: FailedCheck[] }
  /** A reviewer with write access asked for changes issueloop has not answered. */
  | { kind: 'changes_requested'; threads: number }
  /** Checks passed (or there are none) and nothing is unresolved. */
  | { kind: 'green' };

export interface ReviewState {
  /** Unresolved threads and change requests from people with write access, not yet answered. */
  unanswered: number;
}

/**
 * The order matters: a conflicting branch is fixed first (its checks may not even run), and a branch
 * behind a protected base is brought up to date next (its checks run again anyway); pending
 * checks are waited for, not guessed; a failed check comes before review comments (the reviewer
 * would see red anyway); green only when nothing is left.
 */
export function decidePull(pull: PullDetail, checks: CheckSummary, review: ReviewState): PullDecision {
  if (pull.mergeable === false || pull.mergeableState === 'dirty') return { kind: 'conflict' };
  if (pull.mergeableState === 'behind') return { kind: 'behind' };
  if (checks.state === 'pending')
    return { kind: 'wait', why: `checks running: ${checks.pending.join(', ')}` };
  if (checks.state === 'failed') return { kind: 'ci_failed', failed: checks.failed };
  if (review.unanswered > 0) return { kind: 'changes_requested', threads: review.unanswered };
  if (pull.mergeable === null) return { kind: 'wait', why: 'GitHub is computing mergeability' };
  return { kind: 'green' };
}
