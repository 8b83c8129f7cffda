import type { ClaimStore, ClaimView } from '../claims/claim-store.js';
import type { Log } from '../core/logger.js';
import type { TokenUsage } from '../model/types.js';
import type { Ledger } from '../session/ledger.js';
import type { SessionPhase, SessionReport } from '../session/session-report.js';
import type { SessionWork } from '../session/session-work.js';
import type { RoundPlan } from './plan-round.js';
import type { RunCause } from './run-failure.js';

/** What a backlog holds: the claim key and a title for people. */
export interface WorkItem {
  number: number;
  title: string;
  /** How log lines name it, when not `{ issue: number }` (a task: `{ task: 3 }`, not its 48-bit key). */
  logFields?: Readonly<Record<string, unknown>>;
}

/** A round's plan as the source made it, with the claim records it was made from. */
export interface SourcePlan<T extends WorkItem> extends RoundPlan<T> {
  claims: ReadonlyMap<number, ClaimView>;
  /** Whether a candidate may be claimed this round (a GitHub issue: its history is known). */
  claimable(item: T): boolean;
}

export interface RoundInfo {
  round: number;
  now: number;
  log: Log;
  /** The run's claim store and ledger. */
  store: Pick<ClaimStore, 'list' | 'importHistory'>;
  ledger: Ledger;
}

export interface SweepRound {
  round: number;
  log: Log;
  /** The run's claim store and claim owner: what the sweep books, it claims first. */
  claims: ClaimStore;
  owner: string;
  ledger: Ledger;
}

/** Where an item's session stands, for whoever reports it (board, labels, tracking comment). */
export interface ItemTracker {
  /**
   * Claimed, the session starting: its writes (GitHub paces them a second apart) go on while the
   * session works, and the tracker's later writes wait for them.
   */
  claimed(): Promise<void>;
  phase(phase: SessionPhase): void;
  /**
   * The outcome is recorded; `after` is the store's record now (undefined when it cannot be read);
   * `paused`: the session stopped on the run's own failure, which the item is not charged with.
   * Resolves when the worker may take its next item: writes that need not hold it (GitHub's paced
   * board and comment writes) go on after, and the source's `settle()` waits for them.
   */
  finished(report: SessionReport, after: ClaimView | undefined, paused?: RunCause): Promise<void>;
  /**
   * The session has its report, before anything else is recorded: what must be kept even when the
   * work after the session fails (the outcome record's session entry). Never throws.
   */
  sessionEnded?(report: SessionReport, paused?: RunCause): Promise<void>;
  /**
   * Best-of-N: the judge's model call, charged to the item beside its attempts (each attempt's report
   * went through `sessionEnded`). Never throws.
   */
  judged?(call: JudgeCall): Promise<void>;
}

/** What the judge of a best-of-N claim spent. */
export interface JudgeCall {
  costUsd: number;
  model: string;
  usage?: TokenUsage;
}

export interface TrackerInput {
  attempt: number;
  /** The store's record as the attempt began. */
  before: ClaimView | undefined;
  /** False while the claim store cannot be read: nothing may overwrite history with a blank record. */
  readable(): boolean;
  log: Log;
  ledger: Ledger;
}

/**
 * A backlog the scheduler drains: GitHub issues (`createIssueSource`) or the tasks of a task file
 * (`createTaskSource`). The rounds, claims, leases, sessions, outcomes and budgets are the same code
 * for both; what the backlog is, which items a round may claim, what a session works on and who is
 * told about its progress come from here.
 */
export interface WorkSource<T extends WorkItem> {
  /** The backlog now; a throw is a failed fetch (retried with backoff). */
  list(): Promise<readonly T[]>;
  /** Orders the claimable items and says why the others are skipped. */
  plan(items: readonly T[], claims: ReadonlyMap<number, ClaimView>, round: RoundInfo): Promise<SourcePlan<T>>;
  session(item: T): SessionWork;
  /**
   * How many attempts the item's next claim runs (best-of-N after a failure); 1 or absent: one. Asked
   * before the claim, so the scheduler knows the workers it takes.
   */
  attempts?(item: T, claim: ClaimView | undefined): number;
  track(item: T, input: TrackerInput): ItemTracker;
  /**
   * Before a round lists its backlog: what happened to finished work since (GitHub: issueloop's pull
   * requests merged or closed are booked). Never throws.
   */
  sweep?(round: SweepRound): Promise<void>;
  /** Between rounds: pending board moves, caches. Never throws. */
  afterRound(log: Log): Promise<void>;
  /** Until every write a tracker left going has ended (the run waits for it at its end). Never throws. */
  settle(): Promise<void>;
}
