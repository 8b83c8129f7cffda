import type { SessionReport } from '../session/session-report.js';
import { createOutagePause } from './pauses.js';
import { createEmptyRoundMonitor } from './plan-round.js';
import { createRunFailureMonitor } from './run-failure.js';
import type { WorkContext } from './work-item.js';
import type { WorkItem } from './work-source.js';

export type RunStop = 'empty_backlog' | 'max_rounds' | 'budget' | 'time_budget' | 'interrupted';

export interface RunSummary {
  rounds: number;
  reports: SessionReport[];
  stop: RunStop;
  costUsd: number;
  /** Why the run stopped, beyond `stop`: which spend cap it reached and when its window reopens. */
  stopDetail?: string;
  /** What the last planned round left out, and why (leased, needs a human, in review, untrusted). */
  skipped: Array<{ issue: number; title: string; why: string }>;
}

export interface RunOptions {
  /** `host:pid`: who holds the leases. */
  owner: string;
  /** Stop after this many rounds (`--once` is 1). */
  maxRounds?: number;
  /** Work this one item only (the GitHub Action's `issue` mode). */
  only?: number;
  /** No claims at or after this time (epoch ms): a time budget, with room left for running sessions. */
  claimUntil?: number;
  /**
   * Every round waits for all of its sessions before the next one lists the backlog: the scheduler
   * before it became work-conserving, kept so bench/drain.mjs measures both side by side.
   */
  barrier?: boolean;
}

/** Where a run stands between its rounds. */
export interface Run<T extends WorkItem> {
  ctx: WorkContext<T>;
  options: RunOptions;
  /** Rounds that counted so far. */
  rounds: number;
  reports: SessionReport[];
  costUsd: number;
  skipped: RunSummary['skipped'];
  /** Spend reservations taken so far (each one's id is unique within the run). */
  reservations: number;
  stopDetail?: string;
  fetchFailures: number;
  empty: ReturnType<typeof createEmptyRoundMonitor>;
  storeOutage: ReturnType<typeof createOutagePause>;
  /** Failures that are the run's (a refused credential, billing): they pause claiming, then end the run. */
  runFailure: ReturnType<typeof createRunFailureMonitor>;
  /** The run's summary; `inRound`: the round an interrupt stopped, counted as it began. */
  summary(stop: RunStop, inRound?: number): RunSummary;
}

export function createRun<T extends WorkItem>(ctx: WorkContext<T>, options: RunOptions): Run<T> {
  const run: Run<T> = {
    ctx,
    options,
    rounds: 0,
    reports: [],
    costUsd: 0,
    skipped: [],
    reservations: 0,
    fetchFailures: 0,
    empty: createEmptyRoundMonitor(ctx.config.empty_rounds),
    storeOutage: createOutagePause(ctx),
    runFailure: createRunFailureMonitor(ctx.deps.random),
    summary: (stop, inRound) => ({
      rounds: inRound ?? run.rounds,
      reports: run.reports,
      stop,
      costUsd: run.costUsd,
      skipped: run.skipped,
      ...(run.stopDetail !== undefined ? { stopDetail: run.stopDetail } : {}),
    }),
  };
  return run;
}
