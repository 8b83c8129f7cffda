import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { LEASE_CLOCK_SKEW_MS, MAX_LEASE_TTL_MS } from '../../src/claims/lease-limits.js';
import type { RedisScriptClient } from '../../src/claims/redis-connection.js';
import { REDIS_SCRIPTS } from '../../src/claims/redis-scripts.js';
import { useRedisServer } from '../helpers/redis-server.js';

/**
 * The Redis claim store's Lua scripts on their own, against a real redis-server (redis-scripts*.test.ts):
 * every rule they decide, at its boundary. Stryker mutates JavaScript only, so the Lua inside the
 * script strings is held to its rules by these behaviour tests, not by the mutation score.
 */

export const NOW = Date.UTC(2026, 10, 21, 12);
const LIMITS = [MAX_LEASE_TTL_MS, LEASE_CLOCK_SKEW_MS] as const;
/** The furthest ahead a stored lease may end and still be honoured. */
export const REACH = MAX_LEASE_TTL_MS + LEASE_CLOCK_SKEW_MS;
export const TTL = 60_000;

export interface Stored {
  token: number;
  owner: string;
  claimed: number;
  expires: number;
  ttl: number;
}

/** A redis-server for the test file, a client with the scripts, and `repo()`: fresh keys per test. */
export function useScriptRepos() {
  const redis = useRedisServer();
  let connected: RedisScriptClient | undefined;
  beforeAll(() => {
    connected = new Redis(redis.server.url, { scripts: REDIS_SCRIPTS }) as RedisScriptClient;
  });
  afterAll(() => connected?.disconnect());
  const client = new Proxy({} as RedisScriptClient, {
    get: (_target, name) => {
      if (!connected) throw new Error('the script client connects in beforeAll');
      const value = Reflect.get(connected, name);
      return typeof value === 'function' ? value.bind(connected) : value;
    },
  });
  return { client, repo: () => scriptRepo(client) };
}

/** One repository's keys and the scripts called with them. */
function scriptRepo(client: RedisScriptClient) {
  const prefix = `issueloop:test/${randomUUID()}:`;
  const k = {
    lease: (issue: number) => `${prefix}lease:${issue}`,
    record: (issue: number) => `${prefix}issue:${issue}`,
    nextToken: `${prefix}next_token`,
    issues: `${prefix}issues`,
  };
  return {
    prefix,
    k,
    /** A lease key as a host (or a damaged record) wrote it; no Redis expiry. */
    put: (issue: number, lease: Partial<Stored>) =>
      client.set(
        k.lease(issue),
        JSON.stringify({ token: 1, owner: 'a', claimed: NOW, expires: NOW + TTL, ttl: TTL, ...lease }),
      ),
    stored: async (issue: number) => {
      const raw = await client.get(k.lease(issue));
      return raw === null ? null : (JSON.parse(raw) as Stored);
    },
    hash: (issue: number) => client.hgetall(k.record(issue)),
    claim: (issue: number, owner: string, ttl: number, now = NOW) =>
      client.issueloopClaim(
        k.lease(issue),
        k.record(issue),
        k.nextToken,
        k.issues,
        issue,
        owner,
        ttl,
        now,
        ...LIMITS,
      ) as Promise<[number, string, string?]>,
    renew: (issue: number, token: number | string, owner: string, now = NOW) =>
      client.issueloopRenew(k.lease(issue), String(token), owner, now, ...LIMITS) as Promise<
        [number, string, string?]
      >,
    release: (issue: number, token: number, owner: string, payload: object, now = NOW) =>
      client.issueloopRelease(
        k.lease(issue),
        k.record(issue),
        k.issues,
        String(token),
        owner,
        now,
        JSON.stringify({ issue: String(issue), at: new Date(now).toISOString(), ...payload }),
        ...LIMITS,
      ) as Promise<[number, string?, string?]>,
    forceRelease: (issue: number, now = NOW) =>
      client.issueloopForceRelease(k.lease(issue), now, ...LIMITS) as Promise<string>,
    clear: (now = NOW) =>
      client.issueloopClear(k.issues, prefix, now, ...LIMITS) as Promise<[number, number]>,
  };
}
