import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { openOutcomeStore } from '../../src/claims/open-claim-store.js';
import type { OutcomeStore } from '../../src/claims/outcome-store.js';
import { createRedisOutcomeStore } from '../../src/claims/redis-outcome-store.js';
import { CorruptStateError } from '../../src/core/errors.js';
import { useRedisServer } from '../helpers/redis-server.js';
import { describeOutcomeStoreContract, sessionEntry } from './outcome-store-contract.js';

const redis = useRedisServer();
const opened: OutcomeStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

function open(repo: string): OutcomeStore {
  const store = createRedisOutcomeStore({ url: redis.server.url, repo, connectTimeoutMs: 1_000 });
  opened.push(store);
  return store;
}

// Each test has its own key prefix; the twin is a second connection, as a second runner has.
describeOutcomeStoreContract('redis', async () => {
  const repo = `test/${randomUUID()}`;
  return { store: open(repo), twin: open(repo) };
});

const meta = { title: 't', labels: ['issueloop'], claimedAt: '2026-11-02T09:59:00.000Z' };

describe('RedisOutcomeStore', () => {
  it("keeps each record under the repository's prefix, opened from the claims' settings", async () => {
    const repo = `test/${randomUUID()}`;
    const { store, location } = openOutcomeStore(
      {
        claims: { store: 'redis', redis_url: redis.server.url, max_failures: 3 },
        state_dir: '.issueloop',
        repo,
      },
      { cwd: '/' },
    );
    opened.push(store);
    expect(location).toContain(repo);
    await store.recordSession(6, sessionEntry(), meta);
    const raw = new Redis(redis.server.url);
    try {
      expect(JSON.parse((await raw.get(`issueloop:${repo}:outcome:6`)) ?? '{}').sessions[0].usd).toBe(0.0421);
      expect(await raw.smembers(`issueloop:${repo}:outcomes`)).toEqual(['6']);
      expect(await open(`test/${randomUUID()}`).list()).toEqual([]);
    } finally {
      raw.disconnect();
    }
  });

  it('a damaged record is an error naming the key and the fix', async () => {
    const repo = `test/${randomUUID()}`;
    const store = open(repo);
    await store.recordSession(6, sessionEntry(), meta);
    const raw = new Redis(redis.server.url);
    try {
      await raw.set(`issueloop:${repo}:outcome:6`, '{"issue": "six"}');
    } finally {
      raw.disconnect();
    }
    const error = await store.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptStateError);
    expect((error as Error).message).toContain(`DEL issueloop:${repo}:outcome:6`);
  });
});
