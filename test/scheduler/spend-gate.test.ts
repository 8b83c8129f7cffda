import { describe, expect, it } from 'vitest';
import { createMemorySpendLedger } from '../../src/claims/spend-ledger.js';
import { UsageError } from '../../src/core/errors.js';
import {
  assertSessionFitsCaps,
  holdReservation,
  reservationTtl,
  reserveSession,
  settledAfter,
} from '../../src/scheduler/spend-gate.js';
import type { WorkContext } from '../../src/scheduler/work-item.js';
import type { SessionReport } from '../../src/session/session-report.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const session = { max_usd: 5, max_duration: 45 * 60_000 };

function context(daily_usd: number) {
  const clock = new FakeClock(Date.UTC(2026, 10, 26, 20, 48));
  const log = createMemoryLog();
  const spend = createMemorySpendLedger({ caps: { daily_usd }, clock });
  const ctx = {
    config: { session, claims: { ttl: 30 * 60_000 } },
    spend,
    deps: { clock, log },
    redact: (text: string) => text,
  } as unknown as WorkContext;
  return { ctx, spend, log };
}

describe('spend gate', () => {
  it('refuses a cap below session.max_usd before the run starts, naming both settings and the fix', () => {
    expect(() => assertSessionFitsCaps({ budget: { daily_usd: 2 }, session } as never)).toThrow(UsageError);
    expect(() => assertSessionFitsCaps({ budget: { monthly_usd: 4.5 }, session } as never)).toThrow(
      'budget.monthly_usd ($4.5) is below session.max_usd ($5), which each session reserves before it is claimed: no session would ever start. Raise budget.monthly_usd or lower session.max_usd.',
    );
    expect(() =>
      assertSessionFitsCaps({ budget: { daily_usd: 5, monthly_usd: 100 }, session } as never),
    ).not.toThrow();
  });

  it('holds a reservation for the session’s wall time and one lease', () => {
    expect(reservationTtl({ session, claims: { ttl: 30 * 60_000 } } as never)).toBe(75 * 60_000);
  });

  it('says which cap is reached and when it reopens when a session does not fit', async () => {
    const { ctx } = context(8);
    expect(await reserveSession(ctx, 'a')).toMatchObject({ reservation: { usd: 5 } });
    expect(await reserveSession(ctx, 'b')).toEqual({
      full: 'daily cap $8 reached ($0 spent, $5 reserved); the window reopens at 2026-11-27 00:00 UTC, in 3h 12m',
    });
  });

  it('counts the whole reservation as spent when a session throws instead of reporting its cost', async () => {
    const { ctx, spend } = context(20);
    const reserved = await reserveSession(ctx, 'a');
    if (!('reservation' in reserved) || !reserved.reservation) throw new Error('expected a reservation');
    await expect(
      settledAfter(ctx, reserved.reservation, Promise.reject(new Error('disk full'))),
    ).rejects.toThrow('disk full');
    const [day] = await spend.windows();
    expect(day).toMatchObject({ spent_usd: 5, reserved_usd: 0 });
  });

  it('regression (long sessions run unreserved): a held reservation renewed with its lease holds past its first TTL', async () => {
    const { ctx, spend } = context(8);
    const clock = ctx.deps.clock as FakeClock;
    const reserved = await reserveSession(ctx, 'long');
    if (!('reservation' in reserved) || !reserved.reservation) throw new Error('expected a reservation');
    const held = holdReservation(ctx, reserved.reservation);
    // Leases of 30 minutes renewed every 10: two hours in, far past the first 75 minutes.
    for (let minute = 10; minute <= 120; minute += 10) {
      clock.advance(10 * 60_000);
      await held.renew();
    }
    expect(await reserveSession(ctx, 'other')).toMatchObject({
      full: expect.stringContaining('$5 reserved'),
    });
    await held.ended({ costUsd: 2.5 } as SessionReport);
    expect(await spend.windows()).toMatchObject([{ spent_usd: 2.5, reserved_usd: 0 }, {}]);
    // A renewal after the session ended holds nothing again.
    await held.renew();
    expect(await reserveSession(ctx, 'other')).toMatchObject({ reservation: { usd: 5 } });
  });

  it('regression (failures after the session understate its cost): the reported cost is charged even when the work after the session throws', async () => {
    const { ctx, spend } = context(20);
    const reserved = await reserveSession(ctx, 'a');
    if (!('reservation' in reserved) || !reserved.reservation) throw new Error('expected a reservation');
    const held = holdReservation(ctx, reserved.reservation);
    const work = (async () => {
      await held.ended({ costUsd: 1.25 } as SessionReport);
      throw new Error('claims file is corrupt');
    })();
    await expect(held.settledAfter(work)).rejects.toThrow('claims file is corrupt');
    const [day] = await spend.windows();
    // The session's $1.25, not its $5 reservation, and charged once.
    expect(day).toMatchObject({ spent_usd: 1.25, reserved_usd: 0 });
  });

  it('without a spend ledger, reserves nothing and claims as before', async () => {
    const { ctx } = context(20);
    expect(await reserveSession({ ...ctx, spend: undefined } as unknown as WorkContext, 'a')).toEqual({});
  });
});
