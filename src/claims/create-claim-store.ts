import type { Clock } from '../core/clock.js';
import { IssueloopError } from '../core/errors.js';
import { type Redactor, redact as redactByPattern } from '../core/redact.js';
import type { ClaimStore } from './claim-store.js';
import type { ClaimsFile } from './claims-schema.js';
import * as rules from './claims-state.js';

/**
 * Where a store keeps its state. `transact` runs `fn` on the current state with every other writer
 * shut out and persists `next` (when given) before resolving; if `fn` throws nothing is written.
 */
export interface ClaimsBackend {
  transact<T>(fn: (current: ClaimsFile) => rules.Transaction<T> | Promise<rules.Transaction<T>>): Promise<T>;
  /** A consistent snapshot, without taking the lock. */
  read(): Promise<ClaimsFile>;
}

export interface ClaimStoreOptions {
  clock: Pick<Clock, 'now'>;
  /** Failures after which an issue needs a human (config `claims.max_failures`). */
  maxFailures: number;
  /** Applied to failure messages and resume context before they are stored. */
  redact?: Redactor;
}

/** Far above `claims.ttl`'s 24 h limit; it only keeps expiry times representable. */
const MAX_TTL_MS = 7 * 86_400_000;

export function checkIssue(issue: number): void {
  if (!Number.isSafeInteger(issue) || issue <= 0) {
    throw new IssueloopError('invalid_argument', `issue must be a positive integer, got ${String(issue)}`);
  }
}

/** The arguments of `claim`, checked the same way by every store. */
export function checkClaim(issue: number, owner: string, ttlMs: number): void {
  checkIssue(issue);
  if (owner.trim() === '') throw new IssueloopError('invalid_argument', 'owner must not be empty');
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TTL_MS) {
    throw new IssueloopError('invalid_argument', `ttl must be between 1 ms and 7 days, got ${ttlMs} ms`);
  }
}

/** The `ClaimStore` API on top of any backend that can run a locked transaction. */
export function createClaimStore(backend: ClaimsBackend, options: ClaimStoreOptions): ClaimStore {
  const redact = options.redact ?? redactByPattern;
  // `now` is read inside the transaction: waiting for the lock must not age a lease before it exists.
  const ctx = (): rules.RuleContext => ({
    now: options.clock.now(),
    maxFailures: options.maxFailures,
    redact,
  });
  const run = <T>(step: (state: ClaimsFile, c: rules.RuleContext) => rules.Transaction<T>) =>
    backend.transact((state) => step(state, ctx()));

  // Every method is async, so bad arguments reject like any other failure instead of throwing.
  return {
    async claim(issue, owner, ttlMs) {
      checkClaim(issue, owner, ttlMs);
      return run((s, c) => rules.claimIssue(s, issue, owner, ttlMs, c));
    },
    renew: (lease) => run((s, c) => rules.renewLease(s, lease, c)),
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
      const record = (await backend.read()).issues[issue];
      return record ? rules.viewOf(record, ctx()) : undefined;
    },
    async list() {
      const state = await backend.read();
      const c = ctx();
      return Object.values(state.issues)
        .sort((a, b) => a.issue - b.issue)
        .map((r) => rules.viewOf(r, c));
    },
    async needsHuman(issue) {
      checkIssue(issue);
      const record = (await backend.read()).issues[issue];
      return record !== undefined && record.failure_count >= options.maxFailures;
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
