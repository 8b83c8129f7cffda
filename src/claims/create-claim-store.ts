import type { Clock } from '../core/clock.js';
import { IssueloopError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import { type Redactor, redact as redactByPattern } from '../core/redact.js';
import type { ClaimStore, Lease } from './claim-store.js';
import type { ClaimsFile } from './claims-schema.js';
import * as rules from './claims-state.js';
import { checkTtl, createLeaseWarnings } from './lease-limits.js';
import type { StateBackend } from './state-backend.js';

/** Where a claim store keeps its state (state-backend.ts). */
export type ClaimsBackend = StateBackend<ClaimsFile>;

export interface ClaimStoreOptions {
  clock: Pick<Clock, 'now'>;
  /** Failures after which an issue needs a human (config `claims.max_failures`). */
  maxFailures: number;
  /** Applied to failure messages and resume context before they are stored. */
  redact?: Redactor;
  /** Where a stored lease the store refuses to honour (beyond the maximum TTL) is reported. */
  log?: Log;
}

export function checkIssue(issue: number): void {
  if (!Number.isSafeInteger(issue) || issue <= 0) {
    throw new IssueloopError('invalid_argument', `issue must be a positive integer, got ${String(issue)}`);
  }
}

/** The arguments of `claim`, checked the same way by every store. */
export function checkClaim(issue: number, owner: string, ttlMs: number): void {
  checkIssue(issue);
  if (owner.trim() === '') throw new IssueloopError('invalid_argument', 'owner must not be empty');
  checkTtl(ttlMs);
}

/** The lease a caller renews: a TTL above the maximum is refused like one given to `claim`. */
export function checkRenewal(lease: Lease): void {
  checkIssue(lease.issue);
  checkTtl(lease.ttl_ms, 'the lease ttl_ms');
}

/** The `ClaimStore` API on top of any backend that can run a locked transaction. */
export function createClaimStore(backend: ClaimsBackend, options: ClaimStoreOptions): ClaimStore {
  const redact = options.redact ?? redactByPattern;
  const warn = createLeaseWarnings(options.log);
  // `now` is read inside the transaction: waiting for the lock must not age a lease before it exists.
  const ctx = (): rules.RuleContext => ({
    now: options.clock.now(),
    maxFailures: options.maxFailures,
    redact,
  });
  /** The context for rules on `state`, after reporting any lease in it the rules will not honour. */
  const checked = (state: ClaimsFile): rules.RuleContext => {
    const c = ctx();
    for (const record of Object.values(state.issues)) if (record.lease) warn(record.lease, c.now);
    return c;
  };
  const run = <T>(step: (state: ClaimsFile, c: rules.RuleContext) => rules.Transaction<T>) =>
    backend.transact((state) => step(state, checked(state)));
  const read = async () => {
    const state = await backend.read();
    return { state, c: checked(state) };
  };

  // Every method is async, so bad arguments reject like any other failure instead of throwing.
  return {
    async claim(issue, owner, ttlMs) {
      checkClaim(issue, owner, ttlMs);
      return run((s, c) => rules.claimIssue(s, issue, owner, ttlMs, c));
    },
    async renew(lease) {
      checkRenewal(lease);
      return run((s, c) => rules.renewLease(s, lease, c));
    },
    async release(lease, outcome) {
      const stale = await run((s, c) => rules.releaseLease(s, lease, outcome, c));
      if (stale) throw stale;
    },
    async recordFailure(issue, failure) {
      checkIssue(issue);
      return run((s, c) => rules.recordFailure(s, issue, failure, c));
    },
    async get(issue) {
      checkIssue(issue);
      const { state, c } = await read();
      const record = state.issues[issue];
      return record ? rules.viewOf(record, c) : undefined;
    },
    async list() {
      const { state, c } = await read();
      return Object.values(state.issues)
        .sort((a, b) => a.issue - b.issue)
        .map((r) => rules.viewOf(r, c));
    },
    async needsHuman(issue) {
      checkIssue(issue);
      const record = (await backend.read()).issues[issue];
      return record !== undefined && rules.needsHumanNow(record, options.maxFailures);
    },
    async importHistory(issue, history) {
      checkIssue(issue);
      return run((s, c) => rules.importHistory(s, issue, history, c));
    },
    async resetFailures(issue) {
      checkIssue(issue);
      return run((s) => rules.resetFailures(s, issue));
    },
    async forceRelease(issue) {
      checkIssue(issue);
      return run((s, c) => rules.forceRelease(s, issue, c.now));
    },
    clear: () => run((s, c) => rules.clearAll(s, c.now)),
    // Nothing held open between transactions.
    close: async () => undefined,
  };
}
