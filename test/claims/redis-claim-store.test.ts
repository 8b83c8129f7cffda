import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimStore, Lease } from '../../src/claims/claim-store.js';
import { StaleLeaseError } from '../../src/claims/errors.js';
import { ClaimStoreUnreachableError, createRedisClaimStore } from '../../src/claims/redis-claim-store.js';
import { redisLocation } from '../../src/claims/redis-records.js';
import { classifyError } from '../../src/core/classify/classify-error.js';
import type { Log } from '../../src/core/logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { useRedisServer } from '../helpers/redis-server.js';
import { CONTRACT_MAX_FAILURES, describeClaimStoreContract } from './claim-store-contract.js';

const redis = useRedisServer();
const opened: ClaimStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

function open(
  clock: { now(): number },
  repo = `test/${randomUUID()}`,
  url = redis.server.url,
  log?: Log,
): ClaimStore {
  const store = createRedisClaimStore({
    url,
    repo,
    clock,
    maxFailures: CONTRACT_MAX_FAILURES,
    connectTimeoutMs: 1_000,
    ...(log ? { log } : {}),
  });
  opened.push(store);
  return store;
}

/** Writes a lease key as a damaged record or a hand edit would: no expiry of its own (no PX). */
async function plantRedisLease(repo: string, planted: Omit<Lease, 'token'>): Promise<Lease> {
  const raw = new Redis(redis.server.url);
  try {
    const token = await raw.incr(`issueloop:${repo}:next_token`);
    const stored = {
      token,
      owner: planted.owner,
      claimed: Date.parse(planted.claimed_at),
      expires: Date.parse(planted.expires_at),
      ttl: planted.ttl_ms,
    };
    await raw.set(`issueloop:${repo}:lease:${planted.issue}`, JSON.stringify(stored));
    await raw.sadd(`issueloop:${repo}:issues`, String(planted.issue));
    return { ...planted, token };
  } finally {
    raw.disconnect();
  }
}

// The same contract as the memory and file stores; each test gets its own key prefix.
describeClaimStoreContract('redis', async (clock, log) => {
  const repo = `test/${randomUUID()}`;
  return { store: open(clock, repo, redis.server.url, log), plantLease: (l) => plantRedisLease(repo, l) };
});

function leaseOf(result: Awaited<ReturnType<ClaimStore['claim']>>): Lease {
  if (!result.ok) throw new Error(`expected a lease, held by ${result.heldBy.owner}`);
  return result.lease;
}

describe('RedisClaimStore on a real redis-server', () => {
  it('keeps a lease as one key under the repository prefix, with Redis expiry (PX) from the TTL', async () => {
    const repo = `acme/${randomUUID()}`;
    const store = open(new FakeClock(), repo);
    const lease = leaseOf(await store.claim(7, 'host-a:1', 60_000));
    const raw = new Redis(redis.server.url);
    try {
      const pttl = await raw.pttl(`issueloop:${repo}:lease:7`);
      expect(pttl).toBeGreaterThan(55_000);
      expect(pttl).toBeLessThanOrEqual(60_000);
      expect(JSON.parse((await raw.get(`issueloop:${repo}:lease:7`)) ?? '')).toMatchObject({
        token: lease.token,
        owner: 'host-a:1',
      });
      expect(await raw.get(`issueloop:${repo}:next_token`)).toBe(String(lease.token));
      await store.release(lease, { outcome: 'resolved' });
      expect(await raw.exists(`issueloop:${repo}:lease:7`)).toBe(0);
      expect(await raw.hget(`issueloop:${repo}:issue:7`, 'last_outcome')).toBe('resolved');
      // Another repository on the same server sees nothing of it.
      expect(await open(new FakeClock(), `acme/${randomUUID()}`).list()).toEqual([]);
    } finally {
      raw.disconnect();
    }
  });

  it('a holder that stalls past its TTL, after Redis expired its key, is taken over and its fencing token is refused', async () => {
    const clock = new FakeClock();
    const repo = `test/${randomUUID()}`;
    const store = open(clock, repo);
    const stalled = leaseOf(await store.claim(9, 'slow:1', 300));
    clock.advance(301);
    // What Redis's own expiry (PX 300) does once the TTL has passed: the key is gone.
    const raw = new Redis(redis.server.url);
    try {
      expect(await raw.pexpire(`issueloop:${repo}:lease:9`, 0)).toBe(1);
      expect(await raw.exists(`issueloop:${repo}:lease:9`)).toBe(0);
    } finally {
      raw.disconnect();
    }
    const taker = leaseOf(await store.claim(9, 'fast:2', 60_000));
    expect(taker.token).toBeGreaterThan(stalled.token);
    await expect(store.renew(stalled)).rejects.toBeInstanceOf(StaleLeaseError);
    const refused = await store.release(stalled, { outcome: 'resolved' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StaleLeaseError);
    expect((refused as StaleLeaseError).current).toMatchObject({ owner: 'fast:2', token: taker.token });
    expect((await store.get(9))?.lease).toMatchObject({ owner: 'fast:2', token: taker.token });
  });

  it('an unreachable server is a network failure naming the URL without its credentials', async () => {
    const closed = await (await import('../helpers/redis-server.js')).startRedisServer();
    await closed.stop();
    const store = open(
      new FakeClock(),
      'acme/widgets',
      `redis://worker:s3cret-pass@127.0.0.1:${closed.port}/2`,
    );
    const err = await store.claim(1, 'a', 60_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClaimStoreUnreachableError);
    const message = (err as Error).message;
    expect(message).toContain(
      `claim store redis://127.0.0.1:${closed.port}/2 unreachable while trying to claim #1`,
    );
    expect(message).not.toContain('s3cret');
    expect(classifyError(err).errorClass).toBe('network');
    expect(redisLocation('rediss://u:p@host:6380')).toBe('rediss://host:6380');
  });

  it('regression: text cut through an emoji (a lone surrogate) no longer breaks release and import in Lua', async () => {
    const store = open(new FakeClock());
    const half = '\u{1F600}abc'.slice(1);
    const lease = leaseOf(await store.claim(4, 'a', 60_000));
    await store.release(lease, { outcome: 'interrupted', partialContext: half });
    const again = leaseOf(await store.claim(4, 'a', 60_000));
    await store.release(again, {
      outcome: 'no_changes',
      failure: { errorClass: 'no_changes', message: `${'x'.repeat(299)}\u{1F600}`.slice(0, 300) },
    });
    expect((await store.get(4))?.failure_count).toBe(1);
    expect(
      await store.importHistory(5, {
        attempts: 1,
        failure_count: 1,
        failure_reasons: [{ at: '2026-01-01T00:00:00Z', error_class: 'timeout', message: half }],
        last_outcome: 'error:timeout',
      }),
    ).toBe(true);
    expect((await store.get(5))?.failure_reasons[0]?.message).toBe('\uFFFDabc');
  });

  it('a server that accepts but never answers fails as unreachable within the command timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const store = createRedisClaimStore({
      url: `redis://127.0.0.1:${port}`,
      repo: 'acme/widgets',
      clock: new FakeClock(),
      maxFailures: 3,
      commandTimeoutMs: 300,
    });
    opened.push(store);
    try {
      // Without the command timeout the claim would wait forever (the test's own timeout ends it).
      const err = await store.claim(1, 'a', 60_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClaimStoreUnreachableError);
      expect((err as Error).message).toContain(
        `redis://127.0.0.1:${port} unreachable while trying to claim #1`,
      );
      expect(((err as Error).cause as Error).message).toMatch(/timed out/i);
    } finally {
      silent.close();
    }
  });

  it('survives a Redis restart: commands fail as network while it is down, the lease is there after', {
    timeout: 30_000,
  }, async () => {
    const clock = new FakeClock();
    const store = open(clock);
    const lease = leaseOf(await store.claim(3, 'a', 60_000));
    await redis.server.restart();
    // The client reconnects by itself; the append-only file kept the lease.
    const renewed = await store.renew(lease);
    expect(renewed.token).toBe(lease.token);
    await store.release(renewed, { outcome: 'resolved' });
    expect((await store.get(3))?.last_outcome).toBe('resolved');
  });
});
