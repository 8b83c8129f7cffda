import type { ClaimView } from '../../claims/claim-store.js';
import { REFUSED_NEEDS_HUMAN } from '../../claims/claims-state.js';
import type { Blocker } from '../../github/dependencies.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import type { TrustDecision } from '../../github/trust.js';
import { DEPRIORITISE_AFTER_FAILURES, type RoundPlan } from '../../scheduler/plan-round.js';
import { PLAN_REVIEW, PLAN_WITHDRAWN } from './plan-outcomes.js';
import { FOLLOWUPS_EXHAUSTED, MERGED, PR_CLOSED_NEEDS_HUMAN } from './pull-sweep.js';

const PULL_NEEDS_HUMAN: Readonly<Record<string, string>> = {
  [FOLLOWUPS_EXHAUSTED]: 'its pull request still needs work after pr.max_followups follow-ups',
  [PR_CLOSED_NEEDS_HUMAN]: 'its pull request was closed without merging',
};

/** Plan states kept as the claim's last outcome that hold the issue back. */
const PLAN_WAITS: Readonly<Record<string, 'plan_review' | 'plan_withdrawn'>> = {
  [PLAN_REVIEW]: 'plan_review',
  [PLAN_WITHDRAWN]: 'plan_withdrawn',
};

/**
 * How the round skips an issue whose plan waits for its answer (or was withdrawn), or undefined:
 * such an issue has nothing to claim and nothing to charge, trust included (issue-source.ts's
 * readTrust asks the same). A follow-up on an open PR never waits for a plan.
 */
export function planWaitOf(
  claim: Pick<ClaimView, 'last_outcome'> | undefined,
  issue: number,
  followUps: ReadonlySet<number> | undefined,
): 'plan_review' | 'plan_withdrawn' | undefined {
  const wait = PLAN_WAITS[claim?.last_outcome ?? ''];
  return wait && !followUps?.has(issue) ? wait : undefined;
}

function wasInterrupted(claim: ClaimView | undefined): boolean {
  return claim?.last_outcome === 'interrupted' && claim.interrupted_at !== null;
}

/**
 * One round's plan, a pure function of what the round read: drop what is leased (live leases only:
 * an expired one is free), needs a human, awaits review of its PR (unless the PR needs a follow-up),
 * was merged, is untrusted or is blocked by an open issue; order the rest — interrupted issues
 * first (an interruption is not a failure, and its context is fresh), then the backlog's own order
 * (priority labels, then oldest), with issues that failed 3+ times last.
 */
export function planRound(input: {
  issues: readonly BacklogIssue[];
  claims: ReadonlyMap<number, ClaimView>;
  trust: ReadonlyMap<number, TrustDecision>;
  now: number;
  /** Issues whose PR needs a follow-up session (its checks failed, a reviewer asked). */
  followUps?: ReadonlySet<number>;
  /**
   * Issues with an open PR of issueloop's: a failed follow-up is not a reason to start over from
   * the base (that would replace the PR's branch); they are worked only as follow-ups.
   */
  withOpenPull?: ReadonlySet<number>;
  /**
   * Work follow-ups only (a run started by a pull request's event: CI or a review is not someone
   * asking for a first attempt; a requeued issue waits for a drain or its label).
   */
  followUpsOnly?: boolean;
  /** Claim nothing, for this reason (the action's run for `/issueloop stop`). */
  claimNothing?: string;
  /** Issues that wait for others to close (issue dependencies, trusted `Blocked by #N` lines). */
  blockers?: ReadonlyMap<number, readonly Blocker[]>;
}): RoundPlan<BacklogIssue> {
  const skipped: RoundPlan<BacklogIssue>['skipped'] = [];
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
    // Refused for a person (a protected path): said so, rather than as a count of failures.
    if (claim?.last_outcome === REFUSED_NEEDS_HUMAN && claim.failure_count > 0) {
      skipped.push({
        issue,
        reason: { kind: 'pull_needs_human', why: 'its change touched protected paths' },
      });
      return;
    }
    if (claim?.needs_human) {
      skipped.push({ issue, reason: { kind: 'needs_human', failures: claim.failure_count } });
      return;
    }
    // Resolved issues stay open and labelled until their PR merges; working them again would only
    // replace a PR that waits for a reviewer. `issueloop claims reset-failures` or `reset` reopens them.
    const awaitsReview = claim?.last_outcome === 'resolved' || input.withOpenPull?.has(issue.number);
    if (awaitsReview && !input.followUps?.has(issue.number)) {
      skipped.push({ issue, reason: { kind: 'in_review' } });
      return;
    }
    // Its pull request merged: the issue is done, even if it was left open or labelled again.
    if (claim?.last_outcome === MERGED) {
      skipped.push({ issue, reason: { kind: 'merged' } });
      return;
    }
    // Sent to a human after its PR (not only by the label, which may be missing or not excluded).
    const afterPull = PULL_NEEDS_HUMAN[claim?.last_outcome ?? ''];
    if (afterPull) {
      skipped.push({ issue, reason: { kind: 'pull_needs_human', why: afterPull } });
      return;
    }
    // A plan waits for its answer (or was withdrawn): nothing to claim, nothing charged.
    const planWait = planWaitOf(claim, issue.number, input.followUps);
    if (planWait) {
      skipped.push({ issue, reason: { kind: planWait } });
      return;
    }
    const trust = input.trust.get(issue.number);
    if (!trust?.trusted) {
      skipped.push({ issue, reason: { kind: 'untrusted', why: trust?.reason ?? 'not checked' } });
      return;
    }
    // A follow-up works a PR that already exists: what the issue waited for no longer matters.
    const blockers = input.blockers?.get(issue.number);
    if (blockers && blockers.length > 0 && !input.followUps?.has(issue.number)) {
      skipped.push({ issue, reason: { kind: 'blocked', by: blockers } });
      return;
    }
    if (input.claimNothing) {
      skipped.push({ issue, reason: { kind: 'deferred', why: input.claimNothing } });
      return;
    }
    if (input.followUpsOnly && !input.followUps?.has(issue.number)) {
      skipped.push({ issue, reason: { kind: 'deferred', why: 'a pull request event runs follow-ups only' } });
      return;
    }
    const failures = claim?.failure_count ?? 0;
    const rank = wasInterrupted(claim) ? 0 : failures >= DEPRIORITISE_AFTER_FAILURES ? 2 : 1;
    ready.push({ issue, rank, index });
  });
  ready.sort((a, b) => a.rank - b.rank || a.index - b.index);
  return { candidates: ready.map((entry) => entry.issue), skipped };
}
