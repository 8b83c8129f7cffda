import type { Redis } from 'ioredis';
import { IssueloopError } from '../core/errors.js';
import type { Lease } from './claim-store.js';
import type { ClaimRecord } from './claims-schema.js';
import { ClaimStoreUnreachableError } from './errors.js';
import { recordFrom, redisLocation } from './redis-records.js';
import { REDIS_SCRIPTS } from './redis-scripts.js';

type Scripts = {
  [K in keyof typeof REDIS_SCRIPTS]: (...args: Array<string | number>) => Promise<unknown>;
};

export type RedisScriptClient = Redis & Scripts;

function isConnectionError(err: unknown): boolean {
  // A ReplyError is Redis answering (a script error): a bug, not a network failure.
  return !(err instanceof Error && err.name === 'ReplyError');
}

export interface RedisConnection {
  /** The keys of one repository's claims, under `issueloop:<owner>/<repo>:`. */
  keys: {
    lease(issue: number): string;
    record(issue: number): string;
    nextToken: string;
    issues: string;
  };
  prefix: string;
  /** Runs `work` on the connected client; a failure that is not Redis answering is `ClaimStoreUnreachableError`. */
  call<T>(what: string, work: (client: RedisScriptClient) => Promise<T>): Promise<T>;
  /** One issue's record with its lease, read in one transaction; undefined for an unknown issue. */
  read(client: RedisScriptClient, issue: number): Promise<ClaimRecord | undefined>;
  close(): Promise<void>;
}

/**
 * The store's connection to Redis. ioredis is loaded and connected on first use: a command on the
 * file store never pays for it.
 */
export function openRedisConnection(
  options: { url: string; repo: string; connectTimeoutMs?: number; commandTimeoutMs?: number },
  onLease: (lease: Lease) => void,
): RedisConnection {
  const location = redisLocation(options.url);
  const prefix = `issueloop:${options.repo}:`;
  const keys = {
    lease: (issue: number) => `${prefix}lease:${issue}`,
    record: (issue: number) => `${prefix}issue:${issue}`,
    nextToken: `${prefix}next_token`,
    issues: `${prefix}issues`,
  };
  let connecting: Promise<RedisScriptClient> | undefined;
  const connect = (): Promise<RedisScriptClient> =>
    (connecting ??= import('ioredis').then(({ Redis: RedisClient }) => {
      const client = new RedisClient(options.url, {
        lazyConnect: true,
        // Commands wait for a (re)connection, but only so long: a store that is down fails as `network`.
        maxRetriesPerRequest: 1,
        connectTimeout: options.connectTimeoutMs ?? 5_000,
        // A server that accepts but never answers (a stuck proxy, a cut link) must fail too, well
        // within a lease's TTL, so the lease keeper can stop a session before its lease lapses.
        commandTimeout: options.commandTimeoutMs ?? 10_000,
        retryStrategy: (times) => Math.min(times * 200, 2_000),
        scripts: REDIS_SCRIPTS,
      });
      // Connection errors reach the caller through the failed command; the event is not news.
      client.on('error', () => undefined);
      return client as RedisScriptClient;
    }));

  async function call<T>(what: string, work: (client: RedisScriptClient) => Promise<T>): Promise<T> {
    try {
      return await work(await connect());
    } catch (err) {
      if (err instanceof IssueloopError || !isConnectionError(err)) throw err;
      throw new ClaimStoreUnreachableError(location, what, err);
    }
  }

  async function read(client: RedisScriptClient, issue: number): Promise<ClaimRecord | undefined> {
    const results = await client
      .multi()
      .sismember(keys.issues, String(issue))
      .hgetall(keys.record(issue))
      .get(keys.lease(issue))
      .exec();
    const [known, hash, lease] = (results ?? []).map(([err, value]) => {
      if (err) throw err;
      return value;
    });
    if (known !== 1) return undefined;
    const record = recordFrom(issue, hash as Record<string, string>, lease as string | null);
    if (record.lease) onLease(record.lease);
    return record;
  }

  return {
    keys,
    prefix,
    call,
    read,
    async close() {
      const opened = connecting;
      connecting = undefined;
      if (opened) (await opened).disconnect();
    },
  };
}
