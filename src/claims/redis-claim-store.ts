import type { Clock } from '../core/clock.js';
import type { Log } from '../core/logger.js';
import { type Redactor, redact as redactByPattern } from '../core/redact.js';
import type { ClaimStore, ClaimView, Lease } from './claim-store.js';
import { type ClaimRecord, MAX_FAILURE_REASONS } from './claims-schema.js';
import { blankRecord, holderOf, needsHumanNow, oneLine, viewOf } from './claims-state.js';
import { checkClaim, checkIssue, checkRenewal } from './create-claim-store.js';
import { ClaimStoreUnreachableError, StaleLeaseError } from './errors.js';
import { createLeaseWarnings, LEASE_CLOCK_SKEW_MS, leaseProblem, MAX_LEASE_TTL_MS } from './lease-limits.js';

export { ClaimStoreUnreachableError };

import { openRedisConnection } from './redis-connection.js';
import { iso, leaseFrom, luaJson } from './redis-records.js';

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

export function createRedisClaimStore(options: RedisClaimStoreOptions): ClaimStore {
  const redact = options.redact ?? redactByPattern;
  const warn = createLeaseWarnings(options.log);
  // Every script that judges a lease gets the same bounds as the other stores (lease-limits.ts).
  const limits = [MAX_LEASE_TTL_MS, LEASE_CLOCK_SKEW_MS] as const;
  const now = () => options.clock.now();
  const ctx = () => ({ now: now(), maxFailures: options.maxFailures });
  const connection = openRedisConnection(options, (lease) => warn(lease, now()));
  const stale = (lease: Lease, why: string, raw: string) => staleLeaseError(lease, why, raw, warn, now());

  const store: StoreContext = { options, redact, warn, limits, now, ctx, connection, stale };
  return { ...leaseOperations(store), ...recordOperations(store) };
}

/** What the operations share: the options, the connection, the clock and the lease bounds. */
interface StoreContext {
  options: RedisClaimStoreOptions;
  redact: Redactor;
  warn: ReturnType<typeof createLeaseWarnings>;
  limits: readonly [number, number];
  now: () => number;
  ctx: () => { now: number; maxFailures: number };
  connection: ReturnType<typeof openRedisConnection>;
  stale: (lease: Lease, why: string, raw: string) => StaleLeaseError;
}

/** Claim, renew, release and force-release: the operations on a lease, each one script. */
function leaseOperations(
  store: StoreContext,
): Pick<ClaimStore, 'claim' | 'renew' | 'release' | 'forceRelease' | 'close'> {
  const { redact, warn, limits, now, connection, stale } = store;
  const { keys, call } = connection;
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
      const payload = releasePayload(lease, outcome, at, redact);
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
    async forceRelease(issue) {
      checkIssue(issue);
      const raw = (await call(`release #${issue}`, (c) =>
        c.issueloopForceRelease(keys.lease(issue), now(), ...limits),
      )) as string;
      return raw ? leaseFrom(issue, raw) : undefined;
    },
    close: connection.close,
  };
}

/** Failures, history, reading and clearing: the operations on an issue's record. */
function recordOperations(
  store: StoreContext,
): Omit<ClaimStore, 'claim' | 'renew' | 'release' | 'forceRelease' | 'close'> {
  const { options, redact, limits, now, ctx, connection } = store;
  const { keys, prefix, call, read } = connection;
  return {
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
      return record !== undefined && needsHumanNow(record, options.maxFailures);
    },
    async importHistory(issue, history) {
      checkIssue(issue);
      const fields = historyFields(history, now(), redact);
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
    async clear() {
      const [leases, issues] = (await call('clear the claims', (c) =>
        c.issueloopClear(keys.issues, prefix, now(), ...limits),
      )) as [number, number];
      return { leases, issues };
    },
  };
}

/** Why a renew or release was refused, as the error the caller sees. */
function staleLeaseError(
  lease: Lease,
  why: string,
  raw: string,
  warn: ReturnType<typeof createLeaseWarnings>,
  at: number,
): StaleLeaseError {
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
      if (current) warn(current, at);
      return new StaleLeaseError(
        lease.issue,
        lease.token,
        undefined,
        `the stored lease ${current ? leaseProblem(current, at) : 'is invalid'}`,
      );
    case 'expired':
      return new StaleLeaseError(lease.issue, lease.token, undefined, `it expired at ${current?.expires_at}`);
    default:
      return new StaleLeaseError(lease.issue, lease.token, undefined, 'the issue is not claimed');
  }
}

/** What a release writes: the outcome, a redacted failure, an interrupted attempt's partial context. */
function releasePayload(
  lease: Lease,
  outcome: Parameters<ClaimStore['release']>[1],
  at: number,
  redact: Redactor,
) {
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
  return payload;
}

/** An imported history (from the tracking comment) as the record's hash fields, redacted and bounded. */
function historyFields(history: Parameters<ClaimStore['importHistory']>[1], at: number, redact: Redactor) {
  const now = () => at;
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
  return fields;
}
