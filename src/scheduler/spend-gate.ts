import type { Reservation } from '../claims/spend-ledger.js';
import { capOf, describeCapReached, WINDOW_KINDS } from '../claims/spend-windows.js';
import type { Config } from '../config/schema.js';
import { UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { SessionReport } from '../session/session-report.js';
import type { Run, RunStop } from './run-record.js';
import type { WorkContext } from './work-item.js';
import type { WorkItem } from './work-source.js';

/**
 * The budgets a run checks before it claims: its own (`run_max_usd`, the action's time budget) and the
 * spend caps every runner on the claim store shares (`budget.daily_usd`, `budget.monthly_usd`). For
 * the shared caps each claim first reserves the session's cap (`session.max_usd`) in the spend ledger;
 * the session's actual cost replaces the reservation when it ends.
 */

/** The run's dollar budget or the action's time budget: no new claims past either. */
export function budgetStop(run: Run<WorkItem>, log: Log): RunStop | undefined {
  const { config, deps } = run.ctx;
  if (config.run_max_usd !== undefined && run.costUsd >= config.run_max_usd) {
    log.warn({ costUsd: run.costUsd }, `run budget of $${config.run_max_usd} reached: no new claims`);
    return 'budget';
  }
  if (run.options.claimUntil !== undefined && deps.clock.now() >= run.options.claimUntil) {
    log.warn('time budget reached: no new claims');
    return 'time_budget';
  }
  return undefined;
}

/**
 * A cap no session fits in would stop every run at its first claim with a misleading "reached":
 * said before the run starts, with the fix.
 */
export function assertSessionFitsCaps(config: Pick<Config, 'budget' | 'session'>): void {
  for (const kind of WINDOW_KINDS) {
    const cap = capOf(config.budget, kind);
    if (cap === undefined || cap >= config.session.max_usd) continue;
    const name = kind === 'day' ? 'budget.daily_usd' : 'budget.monthly_usd';
    throw new UsageError(
      `${name} ($${cap}) is below session.max_usd ($${config.session.max_usd}), which each session reserves before it is claimed: no session would ever start. Raise ${name} or lower session.max_usd.`,
    );
  }
}

/** How long a reservation holds without its session ending: the session's wall time and one lease. */
export function reservationTtl(config: Pick<Config, 'session' | 'claims'>): number {
  return config.session.max_duration + config.claims.ttl;
}

export type Reserved = { reservation?: Reservation } | { full: string };

/**
 * Reserves a session's cap before item `issue` is claimed (nothing to reserve without a spend
 * ledger), or says which cap is reached and when its window reopens.
 */
export async function reserveSession(ctx: WorkContext, id: string): Promise<Reserved> {
  if (!ctx.spend) return {};
  const result = await ctx.spend.reserve(id, ctx.config.session.max_usd, reservationTtl(ctx.config));
  if (result.ok) return { reservation: result.reservation };
  return { full: describeCapReached(result.full, ctx.deps.clock.now()) };
}

/** Replaces the reservation by what was spent; a ledger that cannot be reached lets it lapse. */
export async function settleReservation(
  ctx: WorkContext,
  reservation: Reservation | undefined,
  usd: number,
): Promise<void> {
  if (!ctx.spend || !reservation) return;
  try {
    await ctx.spend.settle(reservation, usd);
  } catch (err) {
    ctx.deps.log.warn(
      { reservation: reservation.id, usd },
      `could not record $${usd.toFixed(2)} in the spend ledger (${ctx.redact((err as Error).message)}); the reservation lapses at ${reservation.expires_at}`,
    );
  }
}

/**
 * The session, whose cost replaces its reservation when it ends. A session that threw has no report:
 * its whole reservation counts as spent, the safe side of a cap.
 */
export async function settledAfter(
  ctx: WorkContext,
  reservation: Reservation | undefined,
  session: Promise<SessionReport>,
): Promise<SessionReport> {
  let usd = reservation?.usd ?? 0;
  try {
    const report = await session;
    usd = report.costUsd;
    return report;
  } finally {
    await settleReservation(ctx, reservation, usd);
  }
}
