import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClaimStore, Lease } from '../../src/claims/claim-store.js';
import { StaleLeaseError } from '../../src/claims/errors.js';
import { ClaimStoreUnreachableError } from '../../src/claims/redis-claim-store.js';
import { keepLease, LAPSE_MARGIN_MS } from '../../src/scheduler/lease-keeper.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const TTL = 60_000;
const lease: Lease = {
  issue: 7,
  owner: 'host:1',
  token: 3,
  claimed_at: '2026-11-21T12:00:00.000Z',
  expires_at: '2026-11-21T12:01:00.000Z',
  ttl_ms: TTL,
};

/** A store whose renew answers from a script: 'ok', 'down' (unreachable) or 'stale'. */
function scriptedStore(answers: Array<'ok' | 'down' | 'stale'>) {
  const calls: Lease[] = [];
  const renew = async (current: Lease): Promise<Lease> => {
    calls.push(current);
    const answer = answers.shift() ?? 'ok';
    if (answer === 'down') {
      throw new ClaimStoreUnreachableError(
        'redis://127.0.0.1:6379',
        'renew',
        new Error('Connection is closed.'),
      );
    }
    if (answer === 'stale') throw new StaleLeaseError(7, 3, undefined, 'another lease replaced it');
    return { ...current, expires_at: new Date(Date.now() + TTL).toISOString() };
  };
  return { store: { renew } as unknown as ClaimStore, calls };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('keepLease', () => {
  it('renews every third of the TTL', async () => {
    const { store, calls } = scriptedStore([]);
    const onLost = vi.fn();
    const keeper = keepLease(store, lease, { log: createMemoryLog(), onLost });
    await vi.advanceTimersByTimeAsync(3 * (TTL / 3));
    expect(calls).toHaveLength(3);
    expect(keeper.current().expires_at).not.toBe(lease.expires_at);
    expect(onLost).not.toHaveBeenCalled();
    keeper.stop();
  });

  it('regression (long sessions run unreserved): tells onRenewed of each renewal, with the renewed lease, and of no failed one', async () => {
    const { store } = scriptedStore(['ok', 'down', 'ok']);
    const renewed: Lease[] = [];
    const keeper = keepLease(store, lease, {
      log: createMemoryLog(),
      onLost: vi.fn(),
      onRenewed: (l) => renewed.push(l),
    });
    await vi.advanceTimersByTimeAsync(3 * (TTL / 3));
    expect(renewed).toHaveLength(2);
    expect(renewed[1]).toEqual(keeper.current());
    expect(renewed[0]?.expires_at).not.toBe(lease.expires_at);
    keeper.stop();
  });

  it('a stale lease stops the session at once', async () => {
    const { store } = scriptedStore(['stale']);
    const onLost = vi.fn();
    keepLease(store, lease, { log: createMemoryLog(), onLost });
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(onLost).toHaveBeenCalledWith(expect.stringContaining('lease on #7 lost'));
  });

  it('an unreachable store lets the session go on until just before the lease would lapse', async () => {
    const { store, calls } = scriptedStore(['down', 'down', 'down', 'down']);
    const onLost = vi.fn();
    const log = createMemoryLog();
    keepLease(store, lease, { log, onLost });
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(onLost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(calls).toHaveLength(2);
    expect(onLost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(TTL / 3 - LAPSE_MARGIN_MS - 1);
    expect(onLost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2);
    expect(onLost).toHaveBeenCalledTimes(1);
    expect(onLost.mock.calls[0]?.[0]).toMatch(/would lapse unrenewed \(the claim store is unreachable\)/);
  });

  it('a renewal that succeeds again cancels the stop', async () => {
    const { store, calls } = scriptedStore(['down', 'ok']);
    const onLost = vi.fn();
    const keeper = keepLease(store, lease, { log: createMemoryLog(), onLost });
    // Past the moment the failed renewal would have stopped the session (just before the lapse)...
    await vi.advanceTimersByTimeAsync(TTL - LAPSE_MARGIN_MS + 1);
    // ...the keeper kept renewing: the failed renewal, then one that succeeded and moved the expiry on.
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(Date.parse(keeper.current().expires_at)).toBeGreaterThan(Date.parse(lease.expires_at));
    await vi.advanceTimersByTimeAsync(3 * TTL);
    expect(calls.length).toBeGreaterThanOrEqual(5);
    expect(onLost).not.toHaveBeenCalled();
    keeper.stop();
  });
});
