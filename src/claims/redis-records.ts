import type { Lease } from './claim-store.js';
import type { ClaimRecord } from './claims-schema.js';
import { blankRecord } from './claims-state.js';

/**
 * How the Redis claim store's values look on the wire: the lease string's JSON, the per-issue hash,
 * the JSON arguments its Lua scripts decode, and the server a URL names for messages.
 */

/** The server a URL names, without credentials: what messages and `issueloop doctor` show. */
export function redisLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'redis (unparsable URL)';
  }
}

interface StoredLease {
  token: number;
  owner: string;
  claimed: number;
  expires: number;
  ttl: number;
}

export const iso = (ms: number) => new Date(ms).toISOString();

export function leaseFrom(issue: number, raw: string): Lease {
  const stored = JSON.parse(raw) as StoredLease;
  return {
    issue,
    owner: stored.owner,
    token: stored.token,
    claimed_at: iso(stored.claimed),
    expires_at: iso(stored.expires),
    ttl_ms: stored.ttl,
  };
}

export function recordFrom(issue: number, hash: Record<string, string>, lease: string | null): ClaimRecord {
  const text = (name: string) => (hash[name] === undefined ? null : (hash[name] as string));
  return {
    ...blankRecord(issue),
    lease: lease ? leaseFrom(issue, lease) : null,
    attempts: Number(hash.attempts ?? 0),
    failure_count: Number(hash.failure_count ?? 0),
    last_failure_at: text('last_failure_at'),
    failure_reasons: hash.failure_reasons ? JSON.parse(hash.failure_reasons) : [],
    last_outcome: text('last_outcome'),
    interrupted_at: text('interrupted_at'),
    partial_context: text('partial_context'),
    hint: text('hint'),
  };
}

/**
 * JSON for a script argument. Redis's Lua JSON decoder rejects a lone surrogate (`\ud83d`), which a
 * 300-character cut through an emoji leaves behind: such halves become U+FFFD first.
 */
export function luaJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.toWellFormed() : v));
}
