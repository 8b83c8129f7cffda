import type { Log } from '../core/logger.js';
import { telemetry } from '../core/telemetry.js';
import { ISSUELOOP } from '../core/telemetry-names.js';
import { listBacklog } from './list-backlog.js';
import { isStoreOutage, pause } from './pauses.js';
import { describeSkip } from './plan-round.js';
import { createRun, type Run, type RunOptions, type RunStop, type RunSummary } from './run-record.js';
import { budgetStop, holdReservation, reserveSession, settleReservation } from './spend-gate.js';
import { type WorkContext, workItem } from './work-item.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';

export { MAX_STORE_OUTAGES } from './pauses.js';

import type { SourcePlan, WorkItem } from './work-source.js';

export { MAX_FETCH_FAILURES } from './list-backlog.js';

export type { RunOptions, RunStop, RunSummary } from './run-record.js';

/**
 * Rounds until the backlog stays empty (`empty_rounds` rounds in a row with nothing claimed and nothing
 * running), the round limit, the run's budget (`run_max_usd` stops new claims) or an interrupt. A
 * round lists the backlog, plans, claims up to the free workers and records what it claimed; the
 * sessions run on while the next round starts as soon as a worker is free and a session just ended
 * or `poll_interval` passed (work-conserving: a free worker never waits for the slowest session of a
 * round). After each round the source tidies up (GitHub: pending board moves, the ETag cache). A
 * round counts (toward `--max-rounds`, `--once`) only once it has read the backlog and planned: a
 * backlog fetch that failed, or a claim store that was away before anything was claimed, is retried
 * as the same round. Whatever ends the run, the sessions it started finish and record first, and
 * the source's writes about them (the board, the tracking comment) are made.
 */
export async function runRounds<T extends WorkItem>(
  ctx: WorkContext<T>,
  options: RunOptions,
): Promise<RunSummary> {
  const run = createRun(ctx, options);
  const pool = createWorkerPool({
    clock: ctx.deps.clock,
    signal: ctx.signal,
    record: (report) => {
      run.reports.push(report);
      run.costUsd += report.costUsd;
    },
  });
  try {
    const end = await rounds(run, pool);
    await pool.drain();
    await ctx.source.settle();
    return run.summary(end.stop, end.inRound);
  } catch (err) {
    // Sessions already started still finish and record their outcome before the run fails.
    await pool.drain().catch(() => undefined);
    await ctx.source.settle();
    throw err;
  }
}

interface RunEnd {
  stop: RunStop;
  /** An interrupt inside a round counts the round it stopped in. */
  inRound?: number;
}

async function rounds<T extends WorkItem>(run: Run<T>, pool: WorkerPool): Promise<RunEnd> {
  const { ctx } = run;
  for (;;) {
    if (ctx.signal.aborted) return { stop: 'interrupted' };
    if (roundLimitReached(run)) return { stop: 'max_rounds' };
    if (pool.size >= ctx.config.workers) {
      await pool.next();
      continue;
    }
    const round = run.rounds + 1;
    const log = ctx.deps.log.child({ round });
    // A failure of the run itself (a refused credential, billing): claiming waits, then the run ends.
    const holdMs = run.runFailure.holdMs();
    if (holdMs > 0) {
      log.warn(
        { waitMs: holdMs },
        'sessions are failing for a reason that is not the issue; claiming paused',
      );
      if (!(await pause(ctx, holdMs))) return { stop: 'interrupted' };
    }

    const step = await telemetry().span('issueloop.round', { [ISSUELOOP.round]: round }, async (span) => {
      const played = await playRound(run, pool, round, log);
      if ('claimed' in played) span.set({ [ISSUELOOP.claimed]: played.claimed });
      return played;
    });
    if ('end' in step) return step.end;
    if ('again' in step) continue;
    const { claimed } = step;
    // The next round: at once when what it claimed has ended already, when a session ends, or after
    // poll_interval with a worker free.
    if (pool.size === 0) {
      if (claimed === 0 && !(await pause(ctx, ctx.config.poll_interval))) return { stop: 'interrupted' };
    } else {
      await pool.next(pool.size < ctx.config.workers ? ctx.config.poll_interval : undefined);
    }
  }
}

type RoundStep = { end: RunEnd } | { again: true } | { claimed: number };

/**
 * One round, from the sweep to the stop check: what ends the run, a round to play again (a failed
 * fetch, a store outage: it does not count), or how many items it claimed.
 */
async function playRound<T extends WorkItem>(
  run: Run<T>,
  pool: WorkerPool,
  round: number,
  log: Log,
): Promise<RoundStep> {
  const { ctx } = run;
  await ctx.source.sweep?.({
    round,
    log,
    claims: ctx.claims,
    owner: run.options.owner,
    ledger: ctx.ledger,
  });
  const listed = await listBacklog(run, round, log);
  if ('stop' in listed) return { end: { stop: listed.stop, inRound: round } };
  if ('waitMs' in listed) {
    if (!(await pause(ctx, listed.waitMs))) return { end: { stop: 'interrupted' } };
    return { again: true };
  }
  const planned = await planNext(run, listed.backlog, round, log);
  if ('stop' in planned) return { end: { stop: planned.stop, inRound: round } };
  if ('outage' in planned) {
    if (!(await run.storeOutage.pause(planned.outage, log))) return { end: { stop: 'interrupted' } };
    return { again: true };
  }
  const { plan } = planned;
  run.skipped = plan.skipped.map((skip) => ({
    issue: skip.issue.number,
    title: skip.issue.title,
    why: describeSkip(skip.reason),
  }));
  for (const skip of plan.skipped) log.debug({ issue: skip.issue.number }, describeSkip(skip.reason));
  const limit = budgetStop(run, log);
  if (limit) {
    run.rounds = round;
    return { end: { stop: limit } };
  }

  const { claimed, outage, capped } = await claimUpTo(run, plan, pool);
  // A round that claimed nothing because the store was away does not count toward --max-rounds
  // (unless the run was interrupted in it).
  if (outage === undefined || claimed > 0 || ctx.signal.aborted) run.rounds = round;
  await recordRound(run, { round, backlog: listed.backlog, plan, claimed, log });
  if (capped) return { end: { stop: 'budget' } };
  if (run.options.barrier) await pool.drain();

  if (outage !== undefined && !ctx.signal.aborted) {
    // Says nothing about the backlog: not an empty round.
    if (!(await run.storeOutage.pause(outage, log))) return { end: { stop: 'interrupted' } };
    return { again: true };
  }
  run.storeOutage.reset();
  const stop = stopReason(run, claimed + pool.size);
  if (stop) return { end: { stop } };
  return { claimed };
}

function roundLimitReached(run: Run<WorkItem>): boolean {
  return run.options.maxRounds !== undefined && run.rounds >= run.options.maxRounds;
}

/** The source's plan for this round over the claim store's view, or the store's outage to wait out. */
async function planNext<T extends WorkItem>(
  run: Run<T>,
  backlog: readonly T[],
  round: number,
  log: Log,
): Promise<{ plan: SourcePlan<T> } | { outage: unknown } | { stop: RunStop }> {
  const { ctx } = run;
  const now = ctx.deps.clock.now();
  try {
    const claimViews = new Map((await ctx.claims.list()).map((view) => [view.issue, view]));
    const plan = await ctx.source.plan(backlog, claimViews, {
      round,
      now,
      log,
      store: ctx.claims,
      ledger: ctx.ledger,
    });
    return { plan };
  } catch (err) {
    if (ctx.signal.aborted) return { stop: 'interrupted' };
    if (!isStoreOutage(err)) throw err;
    return { outage: err };
  }
}

/**
 * Claims the plan's candidates in order, up to the free workers, starting each claimed session at
 * once (into the pool). A claim store that goes away mid-round stops the claiming; what was claimed
 * still runs.
 */
async function claimUpTo<T extends WorkItem>(
  run: Run<T>,
  plan: SourcePlan<T>,
  pool: WorkerPool,
): Promise<{ claimed: number; outage?: unknown; capped?: boolean }> {
  const { ctx, options } = run;
  let claimed = 0;
  for (const item of plan.candidates) {
    if (pool.size >= ctx.config.workers || ctx.signal.aborted) break;
    if (pool.has(item.number) || !plan.claimable(item)) continue;
    let result: Awaited<ReturnType<typeof ctx.claims.claim>>;
    let reserved: Awaited<ReturnType<typeof reserveSession>> | undefined;
    // Best-of-N: the claim takes as many of the free workers as it has attempts (at least one).
    let width = widthOf(run, item, plan, pool.size);
    try {
      // A shared spend cap is checked first: the session's cap is reserved before the claim.
      const id = `${options.owner}#${item.number}#${++run.reservations}`;
      reserved = await reserveSession(ctx, id, width.n);
      if ('full' in reserved && width.n > 1) {
        // Room for one attempt is still room for work: a cap near its end does not stop the run.
        ctx.deps.log.info(
          { issue: item.number },
          `${reserved.full}: one attempt instead of ${width.n} for #${item.number}`,
        );
        width = { n: 1, slots: 1 };
        reserved = await reserveSession(ctx, id, 1);
      }
      if ('full' in reserved) {
        ctx.deps.log.warn(`${reserved.full}: no new claims`);
        run.stopDetail = reserved.full;
        return { claimed, capped: true };
      }
      result = await ctx.claims.claim(item.number, options.owner, ctx.config.claims.ttl);
    } catch (err) {
      // No session runs on this reservation: it goes back now, not when it lapses an hour later.
      if (reserved && 'reservation' in reserved) await settleReservation(ctx, reserved.reservation, 0);
      if (!isStoreOutage(err) && !ctx.signal.aborted) throw err;
      return { claimed, outage: err };
    }
    if (result.ok) {
      const held = holdReservation(ctx, reserved.reservation);
      const session = workItem({ ...ctx, judge: run.runFailure.judge }, item, result.lease, held, width);
      pool.add(item.number, held.settledAfter(session), width.slots);
      claimed += 1;
    } else await settleReservation(ctx, reserved.reservation, 0);
  }
  return { claimed };
}

/** The attempts the source gives the item's claim, and the workers it takes: min(attempts, free), at least 1. */
function widthOf<T extends WorkItem>(
  run: Run<T>,
  item: T,
  plan: SourcePlan<T>,
  busy: number,
): { n: number; slots: number } {
  const { ctx } = run;
  const n = Math.max(1, ctx.source.attempts?.(item, plan.claims.get(item.number)) ?? 1);
  return { n, slots: Math.max(1, Math.min(n, ctx.config.workers - busy)) };
}

/** Records the round in the ledger and the log, and lets the source tidy up. */
async function recordRound<T extends WorkItem>(
  run: Run<T>,
  round: { round: number; backlog: readonly T[]; plan: SourcePlan<T>; claimed: number; log: Log },
): Promise<void> {
  const { backlog, plan, claimed, log } = round;
  await run.ctx.ledger.append('round', {
    round: round.round,
    backlog: backlog.length,
    claimable: plan.candidates.length,
    claimed,
  });
  log.info(
    { backlog: backlog.length, claimed, skipped: plan.skipped.length },
    `round ${round.round}: ${claimed} claimed`,
  );
  await run.ctx.source.afterRound(log);
}

/**
 * After a round: interrupted, the backlog stayed empty long enough (a round is empty when it claimed
 * nothing and nothing is running), or the round limit.
 */
function stopReason(run: Run<WorkItem>, busy: number): RunStop | undefined {
  if (run.ctx.signal.aborted) return 'interrupted';
  if (run.empty.record(busy)) return 'empty_backlog';
  if (roundLimitReached(run)) return 'max_rounds';
  return undefined;
}
