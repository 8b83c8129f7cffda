import type { ClaimRecord, Lease } from './claims-schema.js';

export type { ClaimRecord, FailureReason, Lease } from './claims-schema.js';

/** Who holds an issue when a claim is refused. */
export interface Holder {
  owner: string;
  token: number;
  expires_at: string;
}

export type ClaimResult = { ok: true; lease: Lease } | { ok: false; heldBy: Holder };

/** A failure as the caller knows it; the store redacts and shortens the message to one line. */
export interface FailureInput {
  errorClass: string;
  message: string;
}

export interface ReleaseOutcome {
  /** `resolved`, `no_changes`, `verify_failed`, `error:<class>`, `interrupted`, … */
  outcome: string;
  /** Counted in the same transaction as the release, so a crash cannot keep one without the other. */
  failure?: FailureInput;
  /** With outcome `interrupted`: what the next attempt is told about this one. */
  partialContext?: string;
  /** After an unknown failure: the diagnosis hint the next attempt is given. */
  hint?: string;
}

/**
 * What an earlier run left on GitHub (the tracking comment's hidden record): enough to keep counting
 * attempts and failures on a runner whose state directory starts empty.
 */
export interface ImportedHistory {
  attempts: number;
  failure_count: number;
  /** Oldest first; the store keeps the newest MAX_FAILURE_REASONS, redacted. */
  failure_reasons: ReadonlyArray<{ at: string; error_class: string; message: string }>;
  last_outcome: string | null;
}

/** A record as callers see it: the lease only while it is live, and the needs-human verdict. */
export interface ClaimView extends ClaimRecord {
  needs_human: boolean;
}

export interface ClearSummary {
  leases: number;
  issues: number;
}

/**
 * The scheduler's only view of claims. Every implementation (memory, file, later redis) passes the
 * same contract suite in test/claims/.
 */
export interface ClaimStore {
  /** Drops every expired lease, then grants this one or says who holds the issue until when. */
  claim(issue: number, owner: string, ttlMs: number): Promise<ClaimResult>;
  /** Extends a live lease by its TTL from now; a stale or expired lease throws `StaleLeaseError`. */
  renew(lease: Lease): Promise<Lease>;
  /** Ends a live lease and records the outcome; a stale lease throws `StaleLeaseError`. */
  release(lease: Lease, outcome: ReleaseOutcome): Promise<void>;
  recordFailure(issue: number, failure: FailureInput): Promise<ClaimView>;
  get(issue: number): Promise<ClaimView | undefined>;
  /** Every issue the store knows, by issue number. */
  list(): Promise<ClaimView[]>;
  /** True once the issue has failed `max_failures` times. */
  needsHuman(issue: number): Promise<boolean>;
  /**
   * Takes an earlier run's history for an issue this store has no record of (a new runner, a lost
   * state directory); true when it was taken. A store that knows the issue is its own truth, so a
   * `resetFailures` here is not undone by an older comment.
   */
  importHistory(issue: number, history: ImportedHistory): Promise<boolean>;
  /** Clears the failure count and reasons; true when there was anything to clear. */
  resetFailures(issue: number): Promise<boolean>;
  /** An operator's release (`issueloop claims release`): no token needed. */
  forceRelease(issue: number): Promise<Lease | undefined>;
  /** Forgets every lease and all history; fencing tokens keep growing. */
  clear(): Promise<ClearSummary>;
  /** Lets go of connections (a server store); the store is not used afterwards. */
  close(): Promise<void>;
}
