import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpendLedger } from '../../src/claims/spend-ledger.js';
import { createRedisSpendLedger } from '../../src/claims/spend-redis.js';
import type { SpendCaps } from '../../src/claims/spend-windows.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { useRedisServer } from '../helpers/redis-server.js';
import { describeSpendLedgerContract } from './spend-ledger-contract.js';

const redis = useRedisServer();
const opened: SpendLedger[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
});

function open(caps: SpendCaps, clock: { now(): number }, repo: string): SpendLedger {
  const ledger = createRedisSpendLedger({
    url: redis.server.url,
    repo,
    caps,
    clock,
    connectTimeoutMs: 1_000,
  });
  opened.push(ledger);
  return ledger;
}

// The same contract as memory and file; each test gets its own key prefix.
describeSpendLedgerContract('redis', async (caps, clock) => {
  const repo = `test/${randomUUID()}`;
  return { ledger: open(caps, clock, repo), share: () => open(caps, clock, repo) };
});

describe('redis spend ledger', () => {
  it("keeps each window in a hash under the repository's prefix that expires a day after the window", async () => {
    const repo = `test/${randomUUID()}`;
    const clock = new FakeClock(Date.UTC(2026, 10, 26, 12));
    const ledger = open({ daily_usd: 20 }, clock, repo);
    const result = await ledger.reserve('host:1#7#3', 5, 60_000);
    if (!result.ok) throw new Error('expected a reservation');
    const raw = new Redis(redis.server.url);
    try {
      const day = `issueloop:${repo}:spend:day:2026-11-26`;
      expect(await raw.hgetall(day)).toEqual({ 'r:host:1#7#3': `5000000:${clock.now() + 60_000}` });
      // 12 h left of the day, then one more day, by the callers' clock.
      expect(await raw.pttl(day)).toBeGreaterThan(35 * 3_600_000);
      expect(await raw.pttl(day)).toBeLessThanOrEqual(36 * 3_600_000);
      await ledger.settle(result.reservation, 2.5);
      expect(await raw.hgetall(day)).toEqual({ spent: '2500000' });
      expect(await raw.hget(`issueloop:${repo}:spend:month:2026-11`, 'spent')).toBe('2500000');
    } finally {
      raw.disconnect();
    }
  });
});
