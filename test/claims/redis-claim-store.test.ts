import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ClaimStore, Lease } from '../../src/claims/claim-store.js';
import { StaleLeaseError } from '../../src/claims/errors.js';
import { ClaimStoreUnreachableError, createRedisClaimStore } from '../../src/claims/redis-claim-store.js';
import { redisLocation } from '../../src/claims/redis-records.js';
import { classifyError } from '../../src/core/classify/classify-error.js';
import type { Log } from '../../src/core/logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { useRedisServer } from '../helpers/redis-server.js';
import { CONTRACT_MAX_FAILURES, describeClaimStoreContract } from './claim-store-contract.js';
import { overlaps, readHeld, startContenders, tokenRegressions } from './multi-process.js';

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

  it('a holder that stalls past its TTL is taken over on real time, and its fencing token is refused', async () => {
    const store = open({ now: () => Date.now() });
    const stalled = leaseOf(await store.claim(9, 'slow:1', 300));
    await new Promise((resolve) => setTimeout(resolve, 450));
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
      const started = Date.now();
      const err = await store.claim(1, 'a', 60_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClaimStoreUnreachableError);
      expect(Date.now() - started).toBeLessThan(5_000);
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

describe('RedisClaimStore across processes', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('never grants two overlapping leases of one issue to 16 contending processes', {
    timeout: 300_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issueloop-redis-contention-'));
    dirs.push(dir);
    const repo = `contention/${randomUUID()}`;
    const contenders = startContenders({
      dir,
      file: redis.server.url,
      count: 16,
      issues: 8,
      cycles: 200,
      ttlMs: 10 * 60_000,
      envFor: () => ({ REDIS_REPO: repo }),
    });
    const exits = await Promise.all(contenders.map((c) => c.exit));
    expect(exits.map((e) => e.stderr).join('')).toBe('');
    expect(exits.map((e) => e.code)).toEqual(Array(16).fill(0));
    const held = await readHeld(
      dir,
      contenders.map((c) => c.owner),
    );
    expect(held).toHaveLength(16 * 200);
    expect(overlaps(held)).toEqual([]);
    expect(tokenRegressions(held)).toEqual([]);
    expect(new Set(held.map((h) => h.token)).size).toBe(held.length);
    const store = open({ now: () => Date.now() }, repo);
    const views = await store.list();
    expect(views.filter((v) => v.lease !== null)).toEqual([]);
    expect(views.reduce((sum, v) => sum + v.attempts, 0)).toBe(16 * 200);
  });
});
