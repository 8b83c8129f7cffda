import type { ClaimStore, ClaimView } from '../../claims/claim-store.js';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import type { BoardPhase } from '../../github/board/board-state.js';
import type { IssueState } from '../../github/issues.js';
import { IN_PROGRESS_LABEL } from '../../github/labels.js';
import type { OwnPull } from '../../github/pr-watch.js';
import {
  emptyTrackingRecord,
  type TrackingPhase,
  type TrackingRecord,
} from '../../github/tracking-comment.js';
import type { Ledger } from '../../session/ledger.js';
import { type InOrder, labelNeedsHuman, quietly } from './issue-tracker.js';
import { currentPulls, type OpenPullState, type ReadReviews, readOpenPulls } from './open-pulls.js';
import { keepPullOutcomes, type PullOutcomeInput } from './pull-outcomes.js';

/** The claim outcome of an issue whose pull request merged: it is never worked again. */
export const MERGED = 'merged';
/** The claim outcome of an issue whose pull request was closed without merging (back in the queue). */
export const PR_CLOSED = 'pr_closed';
/** The same with `pr.on_closed: needs_human`: the planner leaves it to a human. */
export const PR_CLOSED_NEEDS_HUMAN = 'pr_closed_needs_human';
/**
 * The claim outcome of an issue whose PR still needs a follow-up (failing checks, unanswered review
 * threads) after `pr.max_followups` of them.
 */
export const FOLLOWUPS_EXHAUSTED = 'followups_exhausted';

/** A bookkeeping claim is held for seconds; this TTL only bounds a crash in the middle of it. */
const SWEEP_TTL_MS = 5 * 60_000;

export interface SweepInput extends Partial<Pick<PullOutcomeInput, 'outcomes' | 'outcomesImported'>> {
  github: Pick<GitHubAdapter, 'pulls' | 'pullWatch' | 'tracking' | 'labels' | 'board' | 'issues'> &
    Partial<Pick<GitHubAdapter, 'reviewThreads'>>;
  claims: Pick<ClaimStore, 'get' | 'list' | 'claim' | 'release' | 'importHistory'>;
  /**
   * Issues whose tracking comment this run has read already: an own PR's issue the store does not
   * know (a new runner, every Actions job) gets its history from the comment once.
   */
  historyChecked?: Set<number>;
  config: Pick<Config, 'label' | 'pr' | 'model'>;
  ledger: Pick<Ledger, 'append'>;
  log: Log;
  redact: Redactor;
  /** The run's claim owner. */
  owner: string;
  /** What review threads wait for an answer on an open PR; none are read without it. */
  reviews?: ReadReviews;
  now: () => number;
  /**
   * The issue source's per-issue write chain: a booking's board move and comment land after the
   * writes a session of the same issue still has under way (else an older "In review" could land
   * over "Done"). Without it they are made at once.
   */
  inOrder?: InOrder;
}

export interface SweepResult {
  merged: number[];
  closed: number[];
  /** The open PRs of issues that await review, as read this round. */
  open: OpenPullState[];
  /** Issues with an open PR of issueloop's: they are worked only as follow-ups on its branch. */
  withOpenPull: Set<number>;
}

/** Outcomes after which an issue is done with, or left to a human: no follow-up reads its PR. */
const SETTLED = new Set([MERGED, FOLLOWUPS_EXHAUSTED, PR_CLOSED_NEEDS_HUMAN]);

/**
 * A round's sweep of issueloop's pull requests that were merged or closed since the issue was
 * resolved (its claim still says `resolved`): merged → the board's Done, the trigger and in-progress
 * labels off, the tracking comment's final state, the claim record closed as `merged`; closed without
 * merging → back to the queue or to a human (`pr.on_closed`), the reason on the comment. Each issue is
 * claimed for it, so two runners never book the same PR twice. The open ones are read (`readOpenPulls`)
 * for what they need next. GitHub's errors are logged, never thrown: the next round tries again.
 */
export async function sweepPulls(input: SweepInput): Promise<SweepResult> {
  const result: SweepResult = { merged: [], closed: [], open: [], withOpenPull: new Set() };
  let pulls: OwnPull[];
  try {
    pulls = await input.github.pullWatch.ownPulls();
  } catch (err) {
    input.log.warn({ err: input.redact((err as Error).message) }, 'could not list own pull requests');
    return result;
  }
  const awaiting: OwnPull[] = [];
  const current = currentPulls(pulls);
  // One read of the store for every PR, not one per PR; none when issueloop has no PR.
  const known = new Map(
    current.length === 0 ? [] : (await input.claims.list()).map((view) => [view.issue, view]),
  );
  for (const pull of current) {
    const view = known.get(pull.issue) ?? (await importedClaim(input, pull.issue));
    if (view) known.set(pull.issue, view);
    if (pull.state === 'open') {
      result.withOpenPull.add(pull.issue);
      // Resolved, or a follow-up that failed since (its PR still needs one): read what it needs.
      if (view && !view.needs_human && !SETTLED.has(view.last_outcome ?? '')) awaiting.push(pull);
      continue;
    }
    if (view?.last_outcome !== 'resolved') continue;
    const closedAs = input.config.pr.on_closed === 'needs_human' ? PR_CLOSED_NEEDS_HUMAN : PR_CLOSED;
    const booked = await book(input, pull, view, pull.merged ? MERGED : closedAs, (booking) =>
      pull.merged ? bookMerged(input, booking) : bookClosed(input, booking),
    );
    if (booked) (pull.merged ? result.merged : result.closed).push(pull.issue);
  }
  const { outcomes, github } = input;
  if (outcomes && github.reviewThreads) {
    await keepPullOutcomes(
      { ...input, outcomes, github: { ...github, reviewThreads: github.reviewThreads } },
      current,
    );
  }
  for (const state of await readOpenPulls(input.github.pullWatch, awaiting, input)) {
    const { pull } = state;
    const kind = state.decision.kind;
    const wanted = kind !== 'wait' && kind !== 'green';
    const exhausted = wanted && pull.followups >= input.config.pr.max_followups;
    const view = exhausted ? known.get(pull.issue) : undefined;
    if (!exhausted || !view) {
      result.open.push(state);
      continue;
    }
    await book(input, pull, view, FOLLOWUPS_EXHAUSTED, (booking) =>
      bookExhausted(input, booking, { followups: pull.followups, kind }),
    );
  }
  return result;
}

/**
 * An issue the store has never seen (a new runner) is given the history its tracking comment keeps,
 * once a run. A comment that cannot be read now leaves the PR for the next round.
 */
async function importedClaim(input: SweepInput, issue: number): Promise<ClaimView | undefined> {
  const checked = input.historyChecked;
  if (!checked || checked.has(issue)) return undefined;
  try {
    const record = await input.github.tracking.readRecord(issue);
    checked.add(issue);
    if (record && (await input.claims.importHistory(issue, record))) return input.claims.get(issue);
  } catch (err) {
    input.log.warn(
      { err: input.redact((err as Error).message), issue },
      `could not read #${issue}'s history`,
    );
  }
  return undefined;
}

/**
 * Claims the issue, reads it, does `work` and releases the claim with `outcome`: true when booked. A
 * claim held elsewhere is left for later; an issue that cannot be read is released unchanged.
 */
async function book(
  input: SweepInput,
  pull: OwnPull,
  view: ClaimView,
  outcome: string,
  work: (booking: Booking) => Promise<void>,
): Promise<boolean> {
  const claimed = await input.claims.claim(pull.issue, input.owner, SWEEP_TTL_MS);
  if (!claimed.ok) return false;
  // The round's list may be old by now (a session of this issue may have ended since): the record
  // the booking writes, and restores on failure, is the one read under the claim.
  const fresh = await input.claims.get(pull.issue);
  if (fresh && fresh.last_outcome !== view.last_outcome) {
    // Worked since the list was read: what the sweep decided no longer holds; the next sweep decides.
    await input.claims.release(claimed.lease, { outcome: fresh.last_outcome ?? 'resolved' });
    return false;
  }
  try {
    const issue = await input.github.issues.get(pull.issue);
    // The work's writes never throw (each is logged): the chain is never left rejected.
    const booking = () => work({ pull, view, issue });
    await (input.inOrder ? input.inOrder(pull.issue, booking) : booking());
  } catch (err) {
    input.log.warn(
      { err: input.redact((err as Error).message) },
      `could not book #${pull.issue}'s pull request`,
    );
    // Released as it was, to try again next round.
    await input.claims.release(claimed.lease, { outcome: view.last_outcome ?? 'resolved' });
    return false;
  }
  await input.claims.release(claimed.lease, { outcome });
  await input.ledger.append('pull_request', {
    issue: pull.issue,
    pr: pull.url,
    state: pull.state === 'open' ? 'open' : pull.merged ? 'merged' : 'closed',
    ...(outcome === FOLLOWUPS_EXHAUSTED
      ? { detail: 'still needs a follow-up after pr.max_followups of them: needs a human' }
      : {}),
  });
  return true;
}

interface Booking {
  pull: OwnPull;
  view: ClaimView;
  issue: IssueState;
}

function finalRecord(view: ClaimView, outcome: string, at: string): TrackingRecord {
  return {
    ...emptyTrackingRecord(at),
    attempts: view.attempts,
    failure_count: view.failure_count,
    failure_reasons: view.failure_reasons.map((f) => ({ ...f })),
    last_outcome: outcome,
  };
}

async function write(
  input: SweepInput,
  { pull, view, issue }: Booking,
  step: { board: BoardPhase; phase: TrackingPhase; outcome: string; lastFailure?: string },
): Promise<void> {
  const board = input.github.board;
  if (board) {
    await quietly(input, input.log, `board move of #${pull.issue} to ${step.board}`, async () => {
      await board.setStatus({ number: pull.issue, nodeId: issue.nodeId }, step.board);
      await input.ledger.append('board_move', { issue: pull.issue, phase: step.board });
    });
  }
  const at = new Date(input.now()).toISOString();
  await quietly(input, input.log, `tracking comment of #${pull.issue}`, () =>
    input.github.tracking.upsert(pull.issue, {
      phase: step.phase,
      attempt: view.attempts,
      model: input.config.model.primary,
      prUrl: pull.url,
      ...(step.lastFailure ? { lastFailure: step.lastFailure } : {}),
      record: finalRecord(view, step.outcome, at),
    }),
  );
}

async function bookMerged(input: SweepInput, booking: Booking): Promise<void> {
  const { pull, issue } = booking;
  await write(input, booking, { board: 'done', phase: 'done', outcome: MERGED });
  const present = (label: string) => issue.labels.some((l) => l.toLowerCase() === label.toLowerCase());
  for (const label of [input.config.label, IN_PROGRESS_LABEL].filter(present)) {
    await quietly(input, input.log, `removing ${label} from #${pull.issue}`, () =>
      input.github.labels.removeLabel(pull.issue, label),
    );
  }
  input.log.info({ issue: pull.issue, pr: pull.url }, `#${pull.issue}: its pull request was merged`);
}

async function bookClosed(input: SweepInput, booking: Booking): Promise<void> {
  const { pull } = booking;
  const why = `pull request #${pull.number} was closed without merging`;
  if (input.config.pr.on_closed === 'needs_human') {
    await quietly(input, input.log, 'needs-human label', () =>
      labelNeedsHuman(input.github.labels, pull.issue),
    );
    await write(input, booking, { board: 'blocked', phase: 'blocked', outcome: PR_CLOSED, lastFailure: why });
  } else {
    await write(input, booking, { board: 'queued', phase: 'queued', outcome: PR_CLOSED, lastFailure: why });
  }
  input.log.info({ issue: pull.issue, pr: pull.url }, `#${pull.issue}: ${why}`);
}

async function bookExhausted(
  input: SweepInput,
  booking: Booking,
  left: { followups: number; kind: string },
): Promise<void> {
  const { pull } = booking;
  const sessions = `${left.followups} follow-up ${left.followups === 1 ? 'session' : 'sessions'}`;
  const still: Record<string, string> = {
    ci_failed: `the checks of pull request #${pull.number} still fail`,
    changes_requested: `reviewers of pull request #${pull.number} still wait for changes`,
    conflict: `pull request #${pull.number} still conflicts with ${pull.baseRef}`,
    behind: `pull request #${pull.number} is still behind ${pull.baseRef}`,
  };
  const why = `${still[left.kind] ?? `pull request #${pull.number} still needs a follow-up`} after ${sessions}`;
  await quietly(input, input.log, 'needs-human label', () =>
    labelNeedsHuman(input.github.labels, pull.issue),
  );
  await write(input, booking, {
    board: 'blocked',
    phase: 'blocked',
    outcome: FOLLOWUPS_EXHAUSTED,
    lastFailure: why,
  });
  input.log.info({ issue: pull.issue, pr: pull.url }, `#${pull.issue}: ${why}`);
}
