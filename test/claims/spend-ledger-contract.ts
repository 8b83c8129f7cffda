import { describe, expect, it } from 'vitest';
import type { Reservation, ReserveResult, SpendLedger } from '../../src/claims/spend-ledger.js';
import type { SpendCaps } from '../../src/claims/spend-windows.js';
import { FakeClock } from '../helpers/fake-clock.js';

/** Builds a fresh, empty ledger with these caps; `share` opens a second one on the same storage. */
export type SpendFactory = (
  caps: SpendCaps,
  clock: FakeClock,
) => Promise<{ ledger: SpendLedger; share(): SpendLedger }>;

const TTL = 30 * 60_000;
// 2026-11-26 20:48 UTC: 3h 12m before the day's window ends.
const START = Date.UTC(2026, 10, 26, 20, 48);

function granted(result: ReserveResult): Reservation {
  if (!result.ok) throw new Error(`expected a reservation, the ${result.full.kind} window is full`);
  return result.reservation;
}

/** The spend ledger's contract: memory, file and Redis each run it. */
export function describeSpendLedgerContract(name: string, factory: SpendFactory): void {
  describe(`spend ledger contract: ${name}`, () => {
    it('grants reservations while spent + reserved + the new one stays within the daily cap', async () => {
      const clock = new FakeClock(START);
      const { ledger } = await factory({ daily_usd: 10 }, clock);
      granted(await ledger.reserve('a', 4, TTL));
      granted(await ledger.reserve('b', 4, TTL));
      const refused = await ledger.reserve('c', 4, TTL);
      expect(refused).toMatchObject({ ok: false, full: { kind: 'day', spent_usd: 0, reserved_usd: 8 } });
      const [day] = await ledger.windows();
      expect(day).toMatchObject({ kind: 'day', key: 'day:2026-11-26', cap_usd: 10, left_usd: 2 });
      expect(day?.reopens_at).toBe('2026-11-27T00:00:00.000Z');
    });

    it('replaces a reservation by the actual cost when the session ends', async () => {
      const clock = new FakeClock(START);
      const { ledger } = await factory({ daily_usd: 10 }, clock);
      const a = granted(await ledger.reserve('a', 5, TTL));
      granted(await ledger.reserve('b', 5, TTL));
      expect((await ledger.reserve('c', 5, TTL)).ok).toBe(false);
      await ledger.settle(a, 1.25);
      const [day, month] = await ledger.windows();
      expect(day).toMatchObject({ spent_usd: 1.25, reserved_usd: 5, left_usd: 3.75 });
      expect(month).toMatchObject({ kind: 'month', key: 'month:2026-11', spent_usd: 1.25, reserved_usd: 5 });
      expect(month?.cap_usd).toBeUndefined();
      granted(await ledger.reserve('c', 3.75, TTL));
      expect((await ledger.reserve('d', 0.01, TTL)).ok).toBe(false);
    });

    it('checks the monthly cap as well, with spend kept across days', async () => {
      const clock = new FakeClock(START);
      const { ledger } = await factory({ daily_usd: 10, monthly_usd: 12 }, clock);
      await ledger.settle(granted(await ledger.reserve('a', 9, TTL)), 9);
      clock.advance(24 * 3_600_000);
      const [day, month] = await ledger.windows();
      expect(day).toMatchObject({ key: 'day:2026-11-27', spent_usd: 0, left_usd: 10 });
      expect(month).toMatchObject({ spent_usd: 9, left_usd: 3 });
      const refused = await ledger.reserve('b', 5, TTL);
      expect(refused).toMatchObject({ ok: false, full: { kind: 'month', spent_usd: 9, cap_usd: 12 } });
      granted(await ledger.reserve('b', 3, TTL));
    });

    it('reopens the daily window at 00:00 UTC', async () => {
      const clock = new FakeClock(START);
      const { ledger } = await factory({ daily_usd: 5 }, clock);
      await ledger.settle(granted(await ledger.reserve('a', 5, TTL)), 5);
      expect((await ledger.reserve('b', 5, TTL)).ok).toBe(false);
      clock.advance(3 * 3_600_000 + 11 * 60_000);
      expect((await ledger.reserve('b', 5, TTL)).ok).toBe(false);
      clock.advance(60_000);
      granted(await ledger.reserve('b', 5, TTL));
    });

    it("charges a session's cost to the window its reservation was taken in", async () => {
      const clock = new FakeClock(Date.UTC(2026, 10, 26, 23, 50));
      const { ledger } = await factory({ daily_usd: 5 }, clock);
      const late = granted(await ledger.reserve('late', 5, TTL));
      clock.advance(20 * 60_000);
      await ledger.settle(late, 4);
      const [today] = await ledger.windows();
      expect(today).toMatchObject({ key: 'day:2026-11-27', spent_usd: 0, reserved_usd: 0 });
      granted(await ledger.reserve('next', 5, TTL));
    });

    it("lets a crashed runner's reservation lapse at its TTL: it holds the budget, never forever", async () => {
      const clock = new FakeClock(START);
      const { ledger } = await factory({ daily_usd: 5 }, clock);
      granted(await ledger.reserve('crashed', 5, TTL));
      expect((await ledger.reserve('b', 5, TTL)).ok).toBe(false);
      clock.advance(TTL);
      const [day] = await ledger.windows();
      expect(day).toMatchObject({ reserved_usd: 0, left_usd: 5 });
      granted(await ledger.reserve('b', 5, TTL));
    });

    it('regression (long sessions run unreserved): a renewed reservation keeps holding past its first TTL, on every ledger sharing it', async () => {
      const clock = new FakeClock(START);
      const { ledger, share } = await factory({ daily_usd: 5 }, clock);
      const other = share();
      try {
        let long = granted(await ledger.reserve('long', 5, TTL));
        for (let renewal = 0; renewal < 3; renewal++) {
          clock.advance(TTL - 60_000);
          long = await ledger.extend(long, TTL);
          expect(long.expires_at).toBe(new Date(clock.now() + TTL).toISOString());
        }
        // Three TTLs later the session still runs: its reservation still holds the cap.
        expect(clock.now() - START).toBeGreaterThan(2 * TTL);
        expect((await other.reserve('b', 5, TTL)).ok).toBe(false);
        const [day] = await other.windows();
        expect(day).toMatchObject({ reserved_usd: 5, left_usd: 0 });
        await ledger.settle(long, 2);
        expect(await other.windows()).toMatchObject([{ spent_usd: 2, reserved_usd: 0, left_usd: 3 }, {}]);
        // Not renewed again, a reservation lapses as before.
        const crashed = granted(await other.reserve('c', 3, TTL));
        expect(crashed.usd).toBe(3);
        clock.advance(TTL);
        granted(await ledger.reserve('d', 3, TTL));
      } finally {
        await other.close();
      }
    });

    it('holds a reservation again when it is renewed after it lapsed, and never shortens one', async () => {
      const clock = new FakeClock(START);
      const { ledger } = await factory({ daily_usd: 5 }, clock);
      const late = granted(await ledger.reserve('late', 5, TTL));
      clock.advance(TTL + 1);
      expect(await ledger.windows()).toMatchObject([{ reserved_usd: 0 }, {}]);
      const renewed = await ledger.extend(late, TTL);
      expect(await ledger.windows()).toMatchObject([{ reserved_usd: 5, left_usd: 0 }, {}]);
      const kept = await ledger.extend(renewed, 1_000);
      expect(kept.expires_at).toBe(renewed.expires_at);
      clock.advance(TTL - 1);
      expect(await ledger.windows()).toMatchObject([{ reserved_usd: 5 }, {}]);
    });

    it('is shared: a second ledger on the same storage sees and respects the first one’s reservations', async () => {
      const clock = new FakeClock(START);
      const { ledger, share } = await factory({ daily_usd: 10 }, clock);
      const other = share();
      try {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? ledger : other).reserve(`r${i}`, 3, TTL)),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(3);
        const [day] = await other.windows();
        expect(day).toMatchObject({ reserved_usd: 9, left_usd: 1 });
      } finally {
        await other.close();
      }
    });

    it('keeps spend without a cap and refuses a reservation of nothing', async () => {
      const clock = new FakeClock(START);
      const { ledger } = await factory({ monthly_usd: 100 }, clock);
      await ledger.settle(granted(await ledger.reserve('a', 50, TTL)), 60);
      const [day, month] = await ledger.windows();
      expect(day).toMatchObject({ spent_usd: 60 });
      expect(day?.left_usd).toBeUndefined();
      expect(month).toMatchObject({ spent_usd: 60, left_usd: 40 });
      await expect(ledger.reserve('b', 0, TTL)).rejects.toThrow(/positive amount/);
    });
  });
}
