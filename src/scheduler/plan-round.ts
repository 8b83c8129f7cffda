import type { ClaimView } from '../claims/claim-store.js';
import type { BacklogIssue } from '../github/issue-shape.js';
import type { TrustDecision } from '../github/trust.js';

/** Issues that failed this often go behind every other candidate (design.md). */
export const DEPRIORITISE_AFTER_FAILURES = 3;

export type SkipReason =
  | { kind: 'leased'; owner: string; until: string }
  | { kind: 'needs_human'; failures: number }
  | { kind: 'in_review' }
  | { kind: 'untrusted'; why: string }
  | { kind: 'completed' }
  | { kind: 'waiting'; on: string };

export interface RoundPlan<T = BacklogIssue> {
  /** Claimable items in the order they are worked; the round claims the first `workers`. */
  candidates: T[];
  skipped: Array<{ issue: T; reason: SkipReason }>;
}

export function describeSkip(reason: SkipReason): string {
  switch (reason.kind) {
    case 'leased':
      return `leased by ${reason.owner} until ${reason.until}`;
    case 'needs_human':
      return `needs a human after ${reason.failures} failures`;
    case 'in_review':
      return 'resolved: its pull request awaits review';
    case 'untrusted':
      return `untrusted: ${reason.why}`;
    case 'completed':
      return 'completed: committed on its branch';
    case 'waiting':
      return `waits for ${reason.on}: tasks run in file order`;
  }
}

function wasInterrupted(claim: ClaimView | undefined): boolean {
  return claim?.last_outcome === 'interrupted' && claim.interrupted_at !== null;
}

/**
 * One round's plan, a pure function of what the round read: drop what is leased (live leases only:
 * an expired one is free), needs a human, awaits review of its PR or is untrusted; order the rest — interrupted issues
 * first (an interruption is not a failure, and its context is fresh), then the backlog's own order
 * (priority labels, then oldest), with issues that failed 3+ times last.
 */
export function planRound(input: {
  issues: readonly BacklogIssue[];
  claims: ReadonlyMap<number, ClaimView>;
  trust: ReadonlyMap<number, TrustDecision>;
  now: number;
}): RoundPlan {
  const skipped: RoundPlan['skipped'] = [];
  const ready: Array<{ issue: BacklogIssue; rank: number; index: number }> = [];
  input.issues.forEach((issue, index) => {
    const claim = input.claims.get(issue.number);
    if (claim?.lease && Date.parse(claim.lease.expires_at) > input.now) {
      skipped.push({
        issue,
        reason: { kind: 'leased', owner: claim.lease.owner, until: claim.lease.expires_at },
      });
      return;
    }
    if (claim?.needs_human) {
      skipped.push({ issue, reason: { kind: 'needs_human', failures: claim.failure_count } });
      return;
    }
    // Resolved issues stay open and labelled until their PR merges; working them again would only
    // replace a PR that waits for a reviewer. `issueloop claims reset-failures` or `reset` reopens them.
    if (claim?.last_outcome === 'resolved') {
      skipped.push({ issue, reason: { kind: 'in_review' } });
      return;
    }
    const trust = input.trust.get(issue.number);
    if (!trust?.trusted) {
      skipped.push({ issue, reason: { kind: 'untrusted', why: trust?.reason ?? 'not checked' } });
      return;
    }
    const failures = claim?.failure_count ?? 0;
    const rank = wasInterrupted(claim) ? 0 : failures >= DEPRIORITISE_AFTER_FAILURES ? 2 : 1;
    ready.push({ issue, rank, index });
  });
  ready.sort((a, b) => a.rank - b.rank || a.index - b.index);
  return { candidates: ready.map((entry) => entry.issue), skipped };
}

/**
 * Seed 004 task 8: the run ends after `emptyRounds` consecutive rounds with nothing claimable. A
 * round whose backlog could not be fetched is not empty — it says nothing about the backlog.
 */
export function createEmptyRoundMonitor(emptyRounds: number) {
  let streak = 0;
  return {
    /** Records a round; true when the run should stop. */
    record(claimable: number): boolean {
      streak = claimable === 0 ? streak + 1 : 0;
      return streak >= emptyRounds;
    },
    get streak() {
      return streak;
    },
  };
}
