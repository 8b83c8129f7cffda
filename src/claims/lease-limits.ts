import { IssueloopError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { Lease } from './claims-schema.js';

/**
 * The longest lease any store grants or honours: 24 h, the upper bound of `claims.ttl` (config/schema.ts
 * keeps the same number; a test holds them together). A crashed worker's issue is never locked away
 * for longer than this.
 */
export const MAX_LEASE_TTL_MS = 86_400_000;

/**
 * How far a stored lease may reach beyond now + MAX_LEASE_TTL_MS before it is judged damaged or forged:
 * room for hosts whose clocks disagree a little (a lease written by a host running ahead), never so
 * much that a bad record holds an issue much longer than the maximum.
 */
export const LEASE_CLOCK_SKEW_MS = 10 * 60_000;

export function checkTtl(ttlMs: number, what = 'ttl'): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_LEASE_TTL_MS) {
    throw new IssueloopError(
      'invalid_argument',
      `${what} must be between 1 ms and 24 h (the maximum lease TTL, as claims.ttl), got ${ttlMs} ms`,
    );
  }
}

/**
 * Why a stored lease cannot be honoured whatever its owner says, or undefined. No store grants a TTL
 * above the maximum, so a lease with one, or one that ends further ahead than the maximum allows,
 * was damaged or written by hand: honouring it would keep the issue from every worker for as long
 * as it says. Such a lease counts as expired.
 */
export function leaseProblem(lease: Pick<Lease, 'expires_at' | 'ttl_ms'>, now: number): string | undefined {
  if (lease.ttl_ms > MAX_LEASE_TTL_MS) {
    return `has a TTL of ${lease.ttl_ms} ms, above the 24 h maximum`;
  }
  if (Date.parse(lease.expires_at) - now > MAX_LEASE_TTL_MS + LEASE_CLOCK_SKEW_MS) {
    return `expires at ${lease.expires_at}, further ahead than the 24 h maximum lease TTL allows`;
  }
  return undefined;
}

/**
 * Reports each lease `leaseProblem` rejects once per store (a listing reads the same record again
 * and again): the operator learns that an issue was freed and why.
 */
export function createLeaseWarnings(log: Log | undefined): (lease: Lease, now: number) => void {
  const told = new Set<string>();
  return (lease, now) => {
    const problem = leaseProblem(lease, now);
    const key = `${lease.issue}:${lease.token}`;
    if (!problem || !log || told.has(key)) return;
    told.add(key);
    log.warn(
      { issue: lease.issue, token: lease.token, owner: lease.owner, expires_at: lease.expires_at },
      `claims: the lease on #${lease.issue} (token ${lease.token}, ${lease.owner}) ${problem}: ` +
        'the record is damaged or forged, so it is treated as expired',
    );
  };
}
