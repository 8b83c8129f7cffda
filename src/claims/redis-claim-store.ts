import type { Redis } from 'ioredis';
import type { Clock } from '../core/clock.js';
import { IssueloopError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import { type Redactor, redact as redactByPattern } from '../core/redact.js';
import type { ClaimStore, ClaimView, Lease } from './claim-store.js';
import { type ClaimRecord, MAX_FAILURE_REASONS } from './claims-schema.js';
import { blankRecord, holderOf, oneLine, viewOf } from './claims-state.js';
import { checkClaim, checkIssue, checkRenewal } from './create-claim-store.js';
import { ClaimStoreUnreachableError, StaleLeaseError } from './errors.js';
import { createLeaseWarnings, LEASE_CLOCK_SKEW_MS, leaseProblem, MAX_LEASE_TTL_MS } from './lease-limits.js';

export { ClaimStoreUnreachableError };

import { iso, leaseFrom, luaJson, recordFrom, redisLocation } from './redis-records.js';
import { REDIS_SCRIPTS } from './redis-scripts.js';

/**
 * Claims shared by every host that reaches one Redis server: the same `ClaimStore` contract as the
 * file store, each operation one atomic Lua script (see redis-scripts.ts). Keys live under
 * `issueloop:<owner>/<repo>:` so several repositories can share a server.
 */
export interface RedisClaimStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** `owner/name`: the key prefix. */
  repo: string;
  clock: Pick<Clock, 'now'>;
  maxFailures: number;
  redact?: Redactor;
  /** Where a stored lease the store refuses to honour (beyond the maximum TTL) is reported. */
  log?: Log;
  /** How long a command waits for a connection before it fails as `network` (default 5 s). */
  connectTimeoutMs?: number;
  /** How long a command waits for its answer (default 10 s). */
  commandTimeoutMs?: number;
}

type Scripts = {
  [K in keyof typeof REDIS_SCRIPTS]: (...args: Array<string | number>) => Promise<unknown>;
};

function isConnectionError(err: unknown): boolean {
  // A ReplyError is Redis answering (a script error): a bug, not a network failure.
  return !(err instanceof Error && err.name === 'ReplyError');
}

export function createRedisClaimStore(options: RedisClaimStoreOptions): ClaimStore {
  const redact = options.redact ?? redactByPattern;
  const warn = createLeaseWarnings(options.log);
  // Every script that judges a lease gets the same bounds as the other stores (lease-limits.ts).
  const limits = [MAX_LEASE_TTL_MS, LEASE_CLOCK_SKEW_MS] as const;
  const location = redisLocation(options.url);
  const prefix = `issueloop:${options.repo}:`;
  const keys = {
    lease: (issue: number) => `${prefix}lease:${issue}`,
    record: (issue: number) => `${prefix}issue:${issue}`,
    nextToken: `${prefix}next_token`,
    issues: `${prefix}issues`,
  };
  type Client = Redis & Scripts;
  let connecting: Promise<Client> | undefined;
  /** ioredis is loaded and connected on first use: a command on the file store never pays for it. */
  const connect = (): Promise<Client> =>
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
      return client as Client;
    }));

  async function call<T>(what: string, work: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await work(await connect());
    } catch (err) {
      if (err instanceof IssueloopError || !isConnectionError(err)) throw err;
      throw new ClaimStoreUnreachableError(location, what, err);
    }
  }

  async function read(client: Client, issue: number): Promise<ClaimRecord | undefined> {
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
    if (record.lease) warn(record.lease, now());
    return record;
  }

  const now = () => options.clock.now();
  const ctx = () => ({ now: now(), maxFailures: options.maxFailures });

  function stale(lease: Lease, why: string, raw: string): StaleLeaseError {
    const current = raw ? leaseFrom(lease.issue, raw) : undefined;
    switch (why) {
      case 'replaced':
        return new StaleLeaseError(
          lease.issue,
          lease.token,
          current ? holderOf(current) : undefined,
          'another lease replaced it',
        );
      case 'invalid':
        if (current) warn(current, now());
        return new StaleLeaseError(
          lease.issue,
          lease.token,
          undefined,
          `the stored lease ${current ? leaseProblem(current, now()) : 'is invalid'}`,
        );
      case 'expired':
        return new StaleLeaseError(
          lease.issue,
          lease.token,
          undefined,
          `it expired at ${current?.expires_at}`,
        );
      default:
        return new StaleLeaseError(lease.issue, lease.token, undefined, 'the issue is not claimed');
    }
  }

  return {
    async claim(issue, owner, ttlMs) {
      checkClaim(issue, owner, ttlMs);
      const [granted, raw, dropped] = (await call(`claim #${issue}`, (c) =>
        c.issueloopClaim(
          keys.lease(issue),
          keys.record(issue),
          keys.nextToken,
          keys.issues,
          issue,
          owner,
          ttlMs,
          now(),
          ...limits,
        ),
      )) as [number, string, string?];
      if (dropped) warn(leaseFrom(issue, dropped), now());
      const lease = leaseFrom(issue, raw);
      return granted === 1 ? { ok: true, lease } : { ok: false, heldBy: holderOf(lease) };
    },

    async renew(lease) {
      checkRenewal(lease);
      const [ok, why, raw] = (await call(`renew the lease on #${lease.issue}`, (c) =>
        c.issueloopRenew(keys.lease(lease.issue), String(lease.token), lease.owner, now(), ...limits),
      )) as [number, string, string?];
      if (ok !== 1) throw stale(lease, why, raw ?? '');
      return leaseFrom(lease.issue, why);
    },

    async release(lease, outcome) {
      const at = now();
      const interrupted = outcome.outcome === 'interrupted';
      const payload = {
        issue: String(lease.issue),
        outcome: outcome.outcome,
        at: iso(at),
        interrupted,
        ...(outcome.failure
          ? {
              failure: {
                class: outcome.failure.errorClass,
                message: oneLine(redact(outcome.failure.message)),
              },
            }
          : {}),
        ...(interrupted ? { partial: redact(outcome.partialContext ?? '') } : {}),
        ...(outcome.hint ? { hint: redact(outcome.hint) } : {}),
      };
      const [ok, why, raw] = (await call(`release the lease on #${lease.issue}`, (c) =>
        c.issueloopRelease(
          keys.lease(lease.issue),
          keys.record(lease.issue),
          keys.issues,
          String(lease.token),
          lease.owner,
          at,
          luaJson(payload),
          ...limits,
        ),
      )) as [number, string?, string?];
      if (ok !== 1) throw stale(lease, why ?? 'none', raw ?? '');
    },

    async recordFailure(issue, failure) {
      checkIssue(issue);
      await call(`record a failure of #${issue}`, (c) =>
        c.issueloopRecordFailure(
          keys.record(issue),
          keys.issues,
          issue,
          iso(now()),
          failure.errorClass,
          oneLine(redact(failure.message)),
        ),
      );
      const record = await call(`read #${issue}`, (c) => read(c, issue));
      return viewOf(record ?? blankRecord(issue), ctx());
    },

    async get(issue) {
      checkIssue(issue);
      const record = await call(`read #${issue}`, (c) => read(c, issue));
      return record ? viewOf(record, ctx()) : undefined;
    },

    async list() {
      const members = await call('list the claims', (c) => c.smembers(keys.issues));
      const records = await call('list the claims', (c) =>
        Promise.all(members.map((member) => read(c, Number(member)))),
      );
      const c = ctx();
      return records
        .filter((r): r is ClaimRecord => r !== undefined)
        .sort((a, b) => a.issue - b.issue)
        .map((r): ClaimView => viewOf(r, c));
    },

    async needsHuman(issue) {
      checkIssue(issue);
      const record = await call(`read #${issue}`, (c) => read(c, issue));
      return record !== undefined && record.failure_count >= options.maxFailures;
    },

    async importHistory(issue, history) {
      checkIssue(issue);
      const count = (n: number) => (Number.isSafeInteger(n) && n > 0 ? n : 0);
      const reasons = history.failure_reasons.slice(-MAX_FAILURE_REASONS).map((reason) => ({
        at: iso(Number.isNaN(Date.parse(reason.at)) ? now() : Date.parse(reason.at)),
        error_class: reason.error_class,
        message: oneLine(redact(reason.message)),
      }));
      const fields: Record<string, string> = {
        attempts: String(count(history.attempts)),
        failure_count: String(Math.max(count(history.failure_count), reasons.length)),
        failure_reasons: luaJson(reasons),
      };
      const last = reasons.at(-1);
      if (last) fields.last_failure_at = last.at;
      if (history.last_outcome !== null) fields.last_outcome = history.last_outcome;
      const taken = await call(`import the history of #${issue}`, (c) =>
        c.issueloopImportHistory(keys.record(issue), keys.issues, issue, luaJson(fields)),
      );
      return taken === 1;
    },

    async resetFailures(issue) {
      checkIssue(issue);
      const cleared = await call(`reset the failures of #${issue}`, (c) =>
        c.issueloopResetFailures(keys.record(issue)),
      );
      return cleared === 1;
    },

    async forceRelease(issue) {
      checkIssue(issue);
      const raw = (await call(`release #${issue}`, (c) =>
        c.issueloopForceRelease(keys.lease(issue), now(), ...limits),
      )) as string;
      return raw ? leaseFrom(issue, raw) : undefined;
    },

    async clear() {
      const [leases, issues] = (await call('clear the claims', (c) =>
        c.issueloopClear(keys.issues, prefix, now(), ...limits),
      )) as [number, number];
      return { leases, issues };
    },

    async close() {
      const opened = connecting;
      connecting = undefined;
      if (opened) (await opened).disconnect();
    },
  };
}
