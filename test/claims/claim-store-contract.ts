import { describe, expect, it } from 'vitest';
import type { ClaimStore, Lease } from '../../src/claims/claim-store.js';
import { blankRecord, REFUSED_NEEDS_HUMAN } from '../../src/claims/claims-state.js';
import type { ClaimsBackend } from '../../src/claims/create-claim-store.js';
import { StaleLeaseError } from '../../src/claims/errors.js';
import { LEASE_CLOCK_SKEW_MS, MAX_LEASE_TTL_MS } from '../../src/claims/lease-limits.js';
import { IssueloopError } from '../../src/core/errors.js';
import type { Log } from '../../src/core/logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

export interface ContractStore {
  store: ClaimStore;
  /** Every lease the store still keeps, live or expired; absent where expiry is the engine's own. */
  persistedLeases?: () => Promise<Lease[]>;
  /**
   * Writes a lease straight into the store's storage, past every rule, as a damaged record or a
   * hand edit would; its token is the store's next one.
   */
  plantLease(lease: Omit<Lease, 'token'>): Promise<Lease>;
}

/** Builds a fresh, empty store on the given clock and log with `claims.max_failures: 3`. */
export type ContractFactory = (clock: FakeClock, log: Log) => Promise<ContractStore>;

/** `plantLease` for a store built on a `ClaimsBackend` (memory, file). */
export function planterFor(backend: ClaimsBackend): ContractStore['plantLease'] {
  return (planted) =>
    backend.transact((state) => {
      const lease: Lease = { ...planted, token: state.next_token };
      const record = state.issues[lease.issue] ?? blankRecord(lease.issue);
      return {
        result: lease,
        next: {
          ...state,
          next_token: state.next_token + 1,
          issues: { ...state.issues, [lease.issue]: { ...record, lease } },
        },
      };
    });
}

const TTL = 30 * 60_000;
const MAX_FAILURES = 3;
export const CONTRACT_MAX_FAILURES = MAX_FAILURES;

function leaseOf(result: Awaited<ReturnType<ClaimStore['claim']>>): Lease {
  if (!result.ok) throw new Error(`expected a lease, the issue is held by ${result.heldBy.owner}`);
  return result.lease;
}

/** The behaviour every ClaimStore must have; each implementation runs this suite unchanged. */
export function describeClaimStoreContract(name: string, factory: ContractFactory): void {
  describe(`ClaimStore contract: ${name}`, () => {
    async function setup() {
      const clock = new FakeClock();
      const log = createMemoryLog();
      return { clock, log, ...(await factory(clock, log)) };
    }

    it('grants a lease with owner, times, TTL and a token, and counts the attempt', async () => {
      const { clock, store } = await setup();
      const lease = leaseOf(await store.claim(7, 'host-a:1', TTL));
      expect(lease).toMatchObject({ issue: 7, owner: 'host-a:1', ttl_ms: TTL });
      expect(Date.parse(lease.claimed_at)).toBe(clock.now());
      expect(Date.parse(lease.expires_at)).toBe(clock.now() + TTL);
      expect(lease.token).toBeGreaterThan(0);
      const view = await store.get(7);
      expect(view?.lease).toEqual(lease);
      expect(view?.attempts).toBe(1);
    });

    it('refuses a held issue and says who holds it until when, also to the holder itself', async () => {
      const { store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      const other = await store.claim(7, 'b', TTL);
      expect(other).toEqual({
        ok: false,
        heldBy: { owner: 'a', token: lease.token, expires_at: lease.expires_at },
      });
      expect((await store.claim(7, 'a', TTL)).ok).toBe(false);
      expect((await store.get(7))?.attempts).toBe(1);
    });

    it('renews a live lease from now with the same token', async () => {
      const { clock, store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      clock.advance(TTL - 1000);
      const renewed = await store.renew(lease);
      expect(renewed.token).toBe(lease.token);
      expect(Date.parse(renewed.expires_at)).toBe(clock.now() + TTL);
      clock.advance(TTL - 1000);
      expect((await store.claim(7, 'b', TTL)).ok).toBe(false);
    });

    it('releases a lease, records the outcome, and the next claim gets a larger token', async () => {
      const { store } = await setup();
      const first = leaseOf(await store.claim(7, 'a', TTL));
      await store.release(first, { outcome: 'no_changes' });
      const view = await store.get(7);
      expect(view?.lease).toBeNull();
      expect(view?.last_outcome).toBe('no_changes');
      const second = leaseOf(await store.claim(7, 'b', TTL));
      expect(second.token).toBeGreaterThan(first.token);
      expect((await store.get(7))?.attempts).toBe(2);
    });

    it('lets anyone claim an issue once its lease expired', async () => {
      const { clock, store } = await setup();
      const first = leaseOf(await store.claim(7, 'a', TTL));
      clock.advance(TTL - 1);
      expect((await store.claim(7, 'b', TTL)).ok).toBe(false);
      clock.advance(1);
      expect((await store.get(7))?.lease).toBeNull();
      const second = leaseOf(await store.claim(7, 'b', TTL));
      expect(second.owner).toBe('b');
      expect(second.token).toBeGreaterThan(first.token);
    });

    it('removes expired leases lazily, at the start of any claim', async () => {
      const { clock, store, persistedLeases } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      leaseOf(await store.claim(8, 'a', 2 * TTL));
      clock.advance(TTL);
      if (!persistedLeases) {
        // Expiry is the engine's own (Redis): the expired lease is simply not there for anyone.
        expect((await store.get(7))?.lease).toBeNull();
        expect((await store.list()).filter((v) => v.lease).map((v) => v.issue)).toEqual([8]);
        expect((await store.claim(7, 'b', TTL)).ok).toBe(true);
        return;
      }
      // Nothing runs in the background: the expired lease is still on disk until someone claims.
      expect((await persistedLeases?.())?.map((l) => l.token)).toContain(lease.token);
      leaseOf(await store.claim(9, 'b', TTL));
      const left = (await persistedLeases?.())?.map((l) => l.issue).sort();
      expect(left).toEqual([8, 9]);
    });

    it('rejects renew and release with a stale fencing token and leaves the new holder alone', async () => {
      const { clock, store } = await setup();
      const stale = leaseOf(await store.claim(7, 'a', TTL));
      clock.advance(TTL);
      const current = leaseOf(await store.claim(7, 'b', TTL));
      await expect(store.renew(stale)).rejects.toBeInstanceOf(StaleLeaseError);
      const error = await store.release(stale, { outcome: 'resolved' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StaleLeaseError);
      expect(error).toMatchObject({ code: 'lease_stale', issue: 7, token: stale.token });
      expect((error as StaleLeaseError).current).toMatchObject({ owner: 'b', token: current.token });
      const view = await store.get(7);
      expect(view?.lease).toEqual(current);
      expect(view?.last_outcome).toBeNull();
    });

    it('still counts the failure of a stale release, without touching the lease or the outcome', async () => {
      const { clock, store } = await setup();
      const stale = leaseOf(await store.claim(7, 'a', TTL));
      clock.advance(TTL);
      const current = leaseOf(await store.claim(7, 'b', TTL));
      await expect(
        store.release(stale, {
          outcome: 'error:timeout',
          failure: { errorClass: 'timeout', message: 'overran' },
        }),
      ).rejects.toBeInstanceOf(StaleLeaseError);
      const view = await store.get(7);
      expect(view).toMatchObject({ lease: current, last_outcome: null, failure_count: 1 });
      expect(view?.failure_reasons.map((r) => r.message)).toEqual(['overran']);
    });

    it('regression: an issue whose sessions always overrun the lease still reaches needs-human', async () => {
      const { clock, store } = await setup();
      for (let i = 0; i < MAX_FAILURES; i++) {
        const lease = leaseOf(await store.claim(7, 'a', TTL));
        clock.advance(TTL + 1);
        const failure = { errorClass: 'timeout', message: `overran ${i}` };
        await expect(store.release(lease, { outcome: 'error:timeout', failure })).rejects.toThrow(/expired/);
      }
      expect(await store.needsHuman(7)).toBe(true);
    });

    it('renews from the stored lease: a caller cannot change its TTL or claim time', async () => {
      const { clock, store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      clock.advance(1000);
      const renewed = await store.renew({ ...lease, ttl_ms: 1, claimed_at: new Date(0).toISOString() });
      expect(renewed.claimed_at).toBe(lease.claimed_at);
      expect(renewed.ttl_ms).toBe(TTL);
      expect(Date.parse(renewed.expires_at)).toBe(clock.now() + TTL);
    });

    it('rejects renewing a lease that expired even when nobody took the issue', async () => {
      const { clock, store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      clock.advance(TTL);
      await expect(store.renew(lease)).rejects.toThrow(/no longer valid/);
      await expect(store.release(lease, { outcome: 'resolved' })).rejects.toBeInstanceOf(StaleLeaseError);
    });

    it('rejects a forged lease: right token, wrong owner', async () => {
      const { store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      await expect(store.renew({ ...lease, owner: 'mallory' })).rejects.toBeInstanceOf(StaleLeaseError);
      await expect(
        store.release({ ...lease, token: lease.token + 1 }, { outcome: 'x' }),
      ).rejects.toBeInstanceOf(StaleLeaseError);
    });

    it('hands out strictly increasing tokens across issues, also after clear()', async () => {
      const { store } = await setup();
      const tokens: number[] = [];
      for (const issue of [3, 1, 2, 3]) {
        const lease = leaseOf(await store.claim(issue, 'a', TTL));
        tokens.push(lease.token);
        await store.release(lease, { outcome: 'resolved' });
      }
      expect(await store.clear()).toEqual({ leases: 0, issues: 3 });
      expect(await store.list()).toEqual([]);
      tokens.push(leaseOf(await store.claim(1, 'a', TTL)).token);
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] as number);
    });

    it('grants exactly one of many simultaneous claims on one issue', async () => {
      const { store } = await setup();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.claim(7, `worker-${i}`, TTL)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    });

    it('counts failures, stores the class and one redacted line, and keeps them after release', async () => {
      const { clock, store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      await store.release(lease, {
        outcome: 'error:auth',
        failure: {
          errorClass: 'auth',
          message:
            '401 Bad credentials for token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n    at stack frame',
        },
      });
      const view = await store.get(7);
      expect(view?.failure_count).toBe(1);
      expect(view?.last_failure_at).toBe(new Date(clock.now()).toISOString());
      expect(view?.failure_reasons).toHaveLength(1);
      const [reason] = view?.failure_reasons ?? [];
      expect(reason?.error_class).toBe('auth');
      expect(reason?.message).toMatch(/^401 Bad credentials for token /);
      expect(reason?.message).not.toContain('ghp_');
      expect(reason?.message).not.toContain('stack frame');
      expect(view?.last_outcome).toBe('error:auth');
    });

    it('shortens a failure message to 300 characters', async () => {
      const { store } = await setup();
      const view = await store.recordFailure(7, { errorClass: 'unknown', message: 'x'.repeat(1000) });
      expect(view.failure_reasons[0]?.message).toHaveLength(300);
    });

    it('says an issue needs a human after max_failures, and resetFailures clears it', async () => {
      const { store } = await setup();
      for (let i = 1; i <= MAX_FAILURES; i++) {
        expect(await store.needsHuman(7)).toBe(false);
        const view = await store.recordFailure(7, { errorClass: 'verify_failed', message: `attempt ${i}` });
        expect(view.failure_count).toBe(i);
      }
      expect(await store.needsHuman(7)).toBe(true);
      expect((await store.get(7))?.needs_human).toBe(true);
      expect(await store.resetFailures(7)).toBe(true);
      expect(await store.needsHuman(7)).toBe(false);
      expect(await store.get(7)).toMatchObject({
        failure_count: 0,
        failure_reasons: [],
        last_failure_at: null,
      });
      expect(await store.resetFailures(7)).toBe(false);
      expect(await store.resetFailures(99)).toBe(false);
      expect(await store.needsHuman(99)).toBe(false);
    });

    it('says an issue refused for a person (a protected path) needs a human at once, until resetFailures', async () => {
      const { store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      await store.release(lease, {
        outcome: REFUSED_NEEDS_HUMAN,
        failure: { errorClass: 'refused', message: 'protected paths changed: ".github/workflows/x.yml"' },
      });
      expect(await store.needsHuman(7)).toBe(true);
      expect(await store.get(7)).toMatchObject({ needs_human: true, failure_count: 1 });
      expect((await store.list()).map((v) => v.needs_human)).toEqual([true]);
      expect(await store.resetFailures(7)).toBe(true);
      expect(await store.needsHuman(7)).toBe(false);
    });

    it("imports an earlier run's history only for an issue it has no record of", async () => {
      const { store } = await setup();
      const history = {
        attempts: 4,
        failure_count: 3,
        failure_reasons: [
          { at: '2026-01-01T00:00:00.000Z', error_class: 'verify_failed', message: 'tests failed\nmore' },
          {
            at: '2026-01-02T00:00:00Z',
            error_class: 'timeout',
            message: 'key sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
          },
        ],
        last_outcome: 'verify_failed',
      };
      expect(await store.importHistory(7, history)).toBe(true);
      const view = await store.get(7);
      expect(view).toMatchObject({
        attempts: 4,
        failure_count: 3,
        last_failure_at: '2026-01-02T00:00:00.000Z',
        last_outcome: 'verify_failed',
        lease: null,
        needs_human: true,
      });
      expect(view?.failure_reasons[0]?.message).toBe('tests failed');
      expect(view?.failure_reasons[1]?.message).not.toContain('sk-ant-');
      // The store now knows #7: a later import, even a worse one, changes nothing.
      expect(await store.importHistory(7, { ...history, failure_count: 9 })).toBe(false);
      expect((await store.get(7))?.failure_count).toBe(3);
      // A claim goes on counting from the imported attempts.
      await store.resetFailures(7);
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      expect((await store.get(7))?.attempts).toBe(5);
      await store.release(lease, { outcome: 'resolved' });
      expect(await store.importHistory(7, history)).toBe(false);
      expect((await store.get(7))?.failure_count).toBe(0);
    });

    it('counts at least the failure reasons an imported history lists', async () => {
      const { store } = await setup();
      const reasons = Array.from({ length: 12 }, (_, i) => ({
        at: `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`,
        error_class: 'timeout',
        message: `failure ${i + 1}`,
      }));
      expect(
        await store.importHistory(8, {
          attempts: -1,
          failure_count: 0,
          failure_reasons: reasons,
          last_outcome: null,
        }),
      ).toBe(true);
      const view = await store.get(8);
      expect(view?.attempts).toBe(0);
      expect(view?.failure_count).toBe(10);
      expect(view?.failure_reasons[0]?.message).toBe('failure 3');
    });

    it('keeps only the last 10 failure reasons but counts them all', async () => {
      const { store } = await setup();
      for (let i = 1; i <= 12; i++)
        await store.recordFailure(7, { errorClass: 'timeout', message: `failure ${i}` });
      const view = await store.get(7);
      expect(view?.failure_count).toBe(12);
      expect(view?.failure_reasons.map((r) => r.message)).toEqual(
        Array.from({ length: 10 }, (_, i) => `failure ${i + 3}`),
      );
    });

    it('keeps the resume context of an interrupted attempt until the next attempt ends', async () => {
      const { clock, store } = await setup();
      const first = leaseOf(await store.claim(7, 'a', TTL));
      await store.release(first, {
        outcome: 'interrupted',
        partialContext: 'edited src/a.ts; tests pending; key sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
      });
      const interrupted = await store.get(7);
      expect(interrupted?.interrupted_at).toBe(new Date(clock.now()).toISOString());
      expect(interrupted?.partial_context).toMatch(/^edited src\/a\.ts; tests pending; key /);
      expect(interrupted?.partial_context).not.toContain('sk-ant-');
      const second = leaseOf(await store.claim(7, 'a', TTL));
      expect((await store.get(7))?.partial_context).not.toBeNull();
      await store.release(second, { outcome: 'resolved' });
      expect(await store.get(7)).toMatchObject({
        interrupted_at: null,
        partial_context: null,
        last_outcome: 'resolved',
      });
    });

    it('keeps a diagnosis hint for the next attempt, through an interruption, until an attempt ends without one', async () => {
      const { store } = await setup();
      await store.release(leaseOf(await store.claim(7, 'a', TTL)), {
        outcome: 'error:unknown',
        failure: { errorClass: 'unknown', message: 'weird' },
        hint: 'run npm ci before the tests; token ghp_abcdefghijklmnopqrstuvwxyz0123',
      });
      expect((await store.get(7))?.hint).toMatch(/^run npm ci before the tests; token /);
      expect((await store.get(7))?.hint).not.toContain('ghp_');
      await store.release(leaseOf(await store.claim(7, 'a', TTL)), {
        outcome: 'interrupted',
        partialContext: 'x',
      });
      expect((await store.get(7))?.hint).toMatch(/^run npm ci/);
      await store.release(leaseOf(await store.claim(7, 'a', TTL)), { outcome: 'resolved' });
      expect((await store.get(7))?.hint).toBeNull();
    });

    it('lets an operator force-release a lease; the old holder is then rejected', async () => {
      const { store } = await setup();
      const lease = leaseOf(await store.claim(7, 'a', TTL));
      expect(await store.forceRelease(7)).toEqual(lease);
      expect(await store.forceRelease(7)).toBeUndefined();
      expect(await store.forceRelease(8)).toBeUndefined();
      await expect(store.renew(lease)).rejects.toBeInstanceOf(StaleLeaseError);
      expect((await store.claim(7, 'b', TTL)).ok).toBe(true);
    });

    it('lists every known issue in number order with the live lease and the needs-human verdict', async () => {
      const { clock, store } = await setup();
      leaseOf(await store.claim(12, 'a', TTL));
      leaseOf(await store.claim(3, 'a', 2 * TTL));
      for (let i = 0; i < MAX_FAILURES; i++)
        await store.recordFailure(5, { errorClass: 'refused', message: 'no' });
      clock.advance(TTL);
      const list = await store.list();
      expect(list.map((v) => [v.issue, v.lease?.owner ?? null, v.needs_human])).toEqual([
        [3, 'a', false],
        [5, null, true],
        [12, null, false],
      ]);
      expect(await store.get(404)).toBeUndefined();
    });

    it('clear() forgets leases and history and reports what it cleared', async () => {
      const { store } = await setup();
      leaseOf(await store.claim(1, 'a', TTL));
      await store.recordFailure(2, { errorClass: 'network', message: 'ECONNRESET' });
      expect(await store.clear()).toEqual({ leases: 1, issues: 2 });
      expect(await store.list()).toEqual([]);
      expect((await store.claim(1, 'b', TTL)).ok).toBe(true);
    });

    it('rejects an issue that is not a positive integer and a non-positive TTL', async () => {
      const { store } = await setup();
      for (const issue of [0, -1, 1.5, Number.NaN]) {
        await expect(store.claim(issue, 'a', TTL)).rejects.toThrow(IssueloopError);
        await expect(store.get(issue)).rejects.toThrow(/issue must be a positive integer/);
      }
      await expect(store.claim(1, 'a', 0)).rejects.toThrow(/ttl must be between 1 ms and 24 h/);
      await expect(store.claim(1, 'a', Number.MAX_SAFE_INTEGER)).rejects.toThrow(/ttl must be between/);
      await expect(store.claim(1, ' ', TTL)).rejects.toThrow(/owner must not be empty/);
    });

    it('refuses a claim or a renewal with a TTL above the 24 h maximum, and grants exactly 24 h', async () => {
      const { clock, store } = await setup();
      const over = store.claim(1, 'a', MAX_LEASE_TTL_MS + 1);
      await expect(over).rejects.toThrow(IssueloopError);
      await expect(over).rejects.toThrow(
        'ttl must be between 1 ms and 24 h (the maximum lease TTL, as claims.ttl), got 86400001 ms',
      );
      expect(await store.get(1)).toBeUndefined();
      const lease = leaseOf(await store.claim(1, 'a', MAX_LEASE_TTL_MS));
      expect(Date.parse(lease.expires_at)).toBe(clock.now() + MAX_LEASE_TTL_MS);
      await expect(store.renew({ ...lease, ttl_ms: 7 * MAX_LEASE_TTL_MS })).rejects.toThrow(
        /the lease ttl_ms must be between 1 ms and 24 h/,
      );
      expect((await store.get(1))?.lease).toEqual(lease);
    });

    it('regression: a stored lease that expires beyond the maximum TTL no longer holds its issue forever', async () => {
      const { clock, log, store, plantLease } = await setup();
      const year = 365 * MAX_LEASE_TTL_MS;
      const forged = await plantLease({
        issue: 7,
        owner: 'forger',
        claimed_at: new Date(clock.now()).toISOString(),
        expires_at: new Date(clock.now() + year).toISOString(),
        ttl_ms: TTL,
      });
      // Treated as expired: not shown, not renewable, and the issue can be claimed.
      expect((await store.get(7))?.lease ?? null).toBeNull();
      await expect(store.renew(forged)).rejects.toThrow(
        /further ahead than the 24 h maximum lease TTL allows/,
      );
      const taken = leaseOf(await store.claim(7, 'b', TTL));
      expect(taken.token).toBeGreaterThan(forged.token);
      const warnings = log.entries.filter((e) => e.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(
        /^claims: the lease on #7 \(token \d+, forger\) expires at .* further ahead than the 24 h maximum lease TTL allows: the record is damaged or forged, so it is treated as expired$/,
      );
      expect(warnings[0]?.fields).toMatchObject({ issue: 7, token: forged.token, owner: 'forger' });
    });

    it('treats a stored lease with a TTL above the maximum as expired, and tolerates a little clock skew', async () => {
      const { clock, store, plantLease } = await setup();
      const at = (ms: number) => new Date(clock.now() + ms).toISOString();
      await plantLease({
        issue: 8,
        owner: 'old',
        claimed_at: at(0),
        expires_at: at(TTL),
        ttl_ms: 2 * MAX_LEASE_TTL_MS,
      });
      expect((await store.get(8))?.lease ?? null).toBeNull();
      expect((await store.claim(8, 'b', TTL)).ok).toBe(true);
      // A host whose clock runs five minutes ahead wrote this 24 h lease: it still holds.
      const skewed = await plantLease({
        issue: 9,
        owner: 'ahead',
        claimed_at: at(5 * 60_000),
        expires_at: at(MAX_LEASE_TTL_MS + 5 * 60_000),
        ttl_ms: MAX_LEASE_TTL_MS,
      });
      expect((await store.get(9))?.lease).toEqual(skewed);
      expect(await store.claim(9, 'b', TTL)).toMatchObject({ ok: false, heldBy: { owner: 'ahead' } });
    });

    it('regression: a lease ahead by just over the clock-skew tolerance is not honoured (a widened tolerance would be)', async () => {
      const { clock, store, plantLease } = await setup();
      const reach = MAX_LEASE_TTL_MS + LEASE_CLOCK_SKEW_MS;
      const planted = (issue: number, ahead: number) =>
        plantLease({
          issue,
          owner: 'ahead',
          claimed_at: new Date(clock.now()).toISOString(),
          expires_at: new Date(clock.now() + ahead).toISOString(),
          ttl_ms: MAX_LEASE_TTL_MS,
        });
      const atEdge = await planted(10, reach);
      await planted(11, reach + 1);
      expect((await store.get(10))?.lease).toEqual(atEdge);
      expect(await store.claim(10, 'b', TTL)).toMatchObject({ ok: false, heldBy: { owner: 'ahead' } });
      expect((await store.get(11))?.lease ?? null).toBeNull();
      expect(await store.claim(11, 'b', TTL)).toMatchObject({ ok: true, lease: { owner: 'b' } });
    });
  });
}
