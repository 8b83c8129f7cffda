import { ClaimStoreUnreachableError } from '../claims/errors.js';
import { computeBackoff } from '../core/backoff.js';
import { classifyError } from '../core/classify/classify-error.js';
import { IssueloopError, UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { SessionReport } from '../session/session-report.js';
import { createEmptyRoundMonitor, describeSkip } from './plan-round.js';
import { type WorkContext, workItem } from './work-item.js';
import type { SourcePlan, WorkItem } from './work-source.js';

/** A run that cannot read its backlog this many times in a row fails (exit 1) rather than spin. */
export const MAX_FETCH_FAILURES = 3;
/** Rounds in a row without the claim store before the run fails; backoff makes this about a minute. */
export const MAX_STORE_OUTAGES = 5;

export type RunStop = 'empty_backlog' | 'max_rounds' | 'budget' | 'time_budget' | 'interrupted';

export interface RunSummary {
  rounds: number;
  reports: SessionReport[];
  stop: RunStop;
  costUsd: number;
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
}

/**
 * Rounds until the backlog stays empty (`empty_rounds` in a row), the round limit, the run's budget
 * (`run_max_usd` stops new claims) or an interrupt. Each round: list the backlog, plan, claim up to
 * `workers`, run those sessions in parallel, record every outcome; between rounds the source tidies up
 * (GitHub: pending board moves, the ETag cache) and `poll_interval` is waited out (abortable).
 */
export async function runRounds<T extends WorkItem>(
  ctx: WorkContext<T>,
  options: RunOptions,
): Promise<RunSummary> {
  const { config, deps, source } = ctx;
  const log = deps.log;
  const empty = createEmptyRoundMonitor(config.empty_rounds);
  const reports: SessionReport[] = [];
  let costUsd = 0;
  let fetchFailures = 0;
  let rounds = 0;
  let skipped: RunSummary['skipped'] = [];
  const storeOutage = createOutagePause(ctx);
  const summary = (stop: RunStop): RunSummary => ({ rounds, reports, stop, costUsd, skipped });

  for (;;) {
    if (ctx.signal.aborted) return summary('interrupted');
    if (options.maxRounds !== undefined && rounds >= options.maxRounds) return summary('max_rounds');
    rounds += 1;
    const roundLog = log.child({ round: rounds });

    let backlog: readonly T[];
    try {
      backlog = await source.list();
      fetchFailures = 0;
    } catch (err) {
      if (ctx.signal.aborted) return summary('interrupted');
      // A backlog the user broke (a task file edited into bad syntax) is not a fetch to retry: exit 2.
      if (err instanceof UsageError) throw err;
      fetchFailures += 1;
      const failure = classifyError(err, { now: deps.clock.now(), redact: ctx.redact });
      await ctx.ledger.append('backlog_failed', {
        round: rounds,
        errorClass: failure.errorClass,
        message: failure.message,
      });
      if (fetchFailures >= MAX_FETCH_FAILURES) {
        throw new IssueloopError(
          'backlog_unreadable',
          `could not read the backlog ${fetchFailures} times in a row: ${failure.message}${failure.hint ? `: ${failure.hint}` : ''}`,
          { cause: err },
        );
      }
      // Not an empty round: it says nothing about the backlog.
      const waitMs = computeBackoff(
        fetchFailures,
        {
          rateLimited: failure.errorClass === 'rate_limit',
          ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
        },
        deps.random,
      );
      roundLog.warn(
        { errorClass: failure.errorClass, waitMs },
        `backlog fetch failed (${failure.message}); retrying`,
      );
      rounds -= 1;
      if (!(await pause(ctx, waitMs))) return summary('interrupted');
      continue;
    }

    if (options.only !== undefined) backlog = backlog.filter((item) => item.number === options.only);
    const now = deps.clock.now();
    let plan: SourcePlan<T>;
    try {
      const claimViews = new Map((await ctx.claims.list()).map((view) => [view.issue, view]));
      plan = await source.plan(backlog, claimViews, {
        round: rounds,
        now,
        log: roundLog,
        store: ctx.claims,
        ledger: ctx.ledger,
      });
    } catch (err) {
      if (ctx.signal.aborted) return summary('interrupted');
      if (!isStoreOutage(err)) throw err;
      rounds -= 1;
      if (!(await storeOutage.pause(err, roundLog))) return summary('interrupted');
      continue;
    }
    skipped = plan.skipped.map((skip) => ({
      issue: skip.issue.number,
      title: skip.issue.title,
      why: describeSkip(skip.reason),
    }));
    for (const skip of plan.skipped) roundLog.debug({ issue: skip.issue.number }, describeSkip(skip.reason));

    if (config.run_max_usd !== undefined && costUsd >= config.run_max_usd) {
      roundLog.warn({ costUsd }, `run budget of $${config.run_max_usd} reached: no new claims`);
      return summary('budget');
    }
    if (options.claimUntil !== undefined && deps.clock.now() >= options.claimUntil) {
      roundLog.warn('time budget reached: no new claims');
      return summary('time_budget');
    }

    const claimed: Array<Promise<SessionReport>> = [];
    // A claim store that goes away mid-round stops the claiming; what was claimed still runs.
    let outage: unknown;
    for (const item of plan.candidates) {
      if (claimed.length >= config.workers || ctx.signal.aborted) break;
      if (!plan.claimable(item)) continue;
      let result: Awaited<ReturnType<typeof ctx.claims.claim>>;
      try {
        result = await ctx.claims.claim(item.number, options.owner, config.claims.ttl);
      } catch (err) {
        if (!isStoreOutage(err) && !ctx.signal.aborted) {
          // Sessions already started still finish and record their outcome before the run fails.
          await Promise.allSettled(claimed);
          throw err;
        }
        outage = err;
        break;
      }
      if (!result.ok) continue;
      claimed.push(workItem(ctx, item, result.lease));
    }
    await ctx.ledger.append('round', {
      round: rounds,
      backlog: backlog.length,
      claimable: plan.candidates.length,
      claimed: claimed.length,
    });
    roundLog.info(
      { backlog: backlog.length, claimed: claimed.length, skipped: plan.skipped.length },
      `round ${rounds}: ${claimed.length} claimed`,
    );

    for (const report of await Promise.all(claimed)) {
      reports.push(report);
      costUsd += report.costUsd;
    }
    await source.afterRound(roundLog);

    if (outage !== undefined && !ctx.signal.aborted) {
      // A round that claimed nothing because the store was away does not count toward --max-rounds.
      if (claimed.length === 0) rounds -= 1;
      // Says nothing about the backlog: not an empty round.
      if (!(await storeOutage.pause(outage, roundLog))) return summary('interrupted');
      continue;
    }
    storeOutage.reset();
    if (ctx.signal.aborted) return summary('interrupted');
    if (empty.record(claimed.length)) return summary('empty_backlog');
    if (options.maxRounds !== undefined && rounds >= options.maxRounds) return summary('max_rounds');
    if (claimed.length === 0 && !(await pause(ctx, config.poll_interval))) return summary('interrupted');
  }
}

/** A claim store that cannot be reached (a Redis server restarting, a network cut): worth waiting for. */
function isStoreOutage(err: unknown): boolean {
  return err instanceof ClaimStoreUnreachableError;
}

/**
 * While the claim store is unreachable the run claims nothing: it backs off and tries again, and
 * fails (exit 1) after MAX_STORE_OUTAGES rounds in a row, naming the store and the error.
 */
function createOutagePause(ctx: WorkContext) {
  let outages = 0;
  return {
    reset() {
      outages = 0;
    },
    async pause(err: unknown, log: Log): Promise<boolean> {
      outages += 1;
      const failure = classifyError(err, { now: ctx.deps.clock.now(), redact: ctx.redact });
      await ctx.ledger.append('claims_unreachable', { attempt: outages, message: failure.message });
      if (outages >= MAX_STORE_OUTAGES) {
        throw new IssueloopError(
          'claims_unreachable',
          `could not reach the claim store ${outages} times in a row: ${failure.message}`,
          { cause: err },
        );
      }
      const waitMs = computeBackoff(outages, {}, ctx.deps.random);
      log.warn({ waitMs }, `claim store unreachable (${failure.message}); no claims until it is back`);
      return pause(ctx, waitMs);
    },
  };
}

/** Sleeps on the injected clock; false when the run was interrupted meanwhile. */
async function pause(ctx: WorkContext, ms: number): Promise<boolean> {
  try {
    await ctx.deps.clock.sleep(ms, ctx.signal);
    return true;
  } catch {
    return false;
  }
}
