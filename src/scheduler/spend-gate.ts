import type { Reservation } from '../claims/spend-ledger.js';
import { capOf, describeCapReached, WINDOW_KINDS } from '../claims/spend-windows.js';
import type { Config } from '../config/schema.js';
import { UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { SessionReport } from '../session/session-report.js';
import type { Run, RunStop } from './run-record.js';
import type { SessionReservation, WorkContext } from './work-item.js';
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
export async function reserveSession(ctx: WorkContext, id: string, attempts = 1): Promise<Reserved> {
  if (!ctx.spend) return {};
  const usd = attemptsUsd(ctx.config, attempts);
  const result = await ctx.spend.reserve(id, usd, reservationTtl(ctx.config));
  if (result.ok) return { reservation: result.reservation };
  return { full: describeCapReached(result.full, ctx.deps.clock.now()) };
}

/**
 * What a claim of `n` attempts may spend, and so reserves: each attempt's `session.max_usd`, or
 * `attempts.max_usd` when that is less (the judge's one cheap call rides on the margin).
 */
export function attemptsUsd(config: Pick<Config, 'session' | 'attempts'>, n: number): number {
  if (n <= 1) return config.session.max_usd;
  const each = config.session.max_usd * n;
  return Math.min(each, config.attempts.max_usd ?? Number.POSITIVE_INFINITY);
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
 * A claimed session's reservation while it runs: renewed with its lease (`renew`), so a session that
 * runs past the reservation's first TTL keeps holding the cap, and replaced by the session's actual
 * cost as soon as its report exists (`ended`), even when the work after the session then fails.
 */
export interface HeldReservation extends SessionReservation {
  /** Settles what `ended` did not: a session that threw has no report and is charged its whole reservation. */
  settledAfter(session: Promise<SessionReport>): Promise<SessionReport>;
}

export function holdReservation(ctx: WorkContext, reservation: Reservation | undefined): HeldReservation {
  let current = reservation;
  let settled = false;
  // Renewals run one at a time and before the settlement: a late one must not hold a settled reservation again.
  let renewing = Promise.resolve();
  const settle = async (usd: (held: Reservation | undefined) => number) => {
    if (settled) return;
    settled = true;
    await renewing;
    await settleReservation(ctx, current, usd(current));
  };
  return {
    renew() {
      const spend = ctx.spend;
      if (!spend || settled) return renewing;
      renewing = renewing.then(async () => {
        if (settled || !current) return;
        try {
          // As long as the lease just renewed holds: a runner that dies lets both lapse together.
          current = await spend.extend(current, ctx.config.claims.ttl);
        } catch (err) {
          ctx.deps.log.warn(
            { reservation: current.id },
            `could not renew the session's reservation in the spend ledger (${ctx.redact((err as Error).message)}); it lapses at ${current.expires_at}`,
          );
        }
      });
      return renewing;
    },
    ended: (report) => settle(() => report.costUsd),
    async settledAfter(session) {
      try {
        const report = await session;
        await settle(() => report.costUsd);
        return report;
      } catch (err) {
        await settle((held) => held?.usd ?? 0);
        throw err;
      }
    },
  };
}

/** The session, settled after it ends (see `holdReservation`). */
export function settledAfter(
  ctx: WorkContext,
  reservation: Reservation | undefined,
  session: Promise<SessionReport>,
): Promise<SessionReport> {
  return holdReservation(ctx, reservation).settledAfter(session);
}
