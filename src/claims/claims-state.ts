import type { Redactor } from '../core/redact.js';
import type {
  ClaimResult,
  ClaimView,
  ClearSummary,
  FailureInput,
  Holder,
  ImportedHistory,
  ReleaseOutcome,
} from './claim-store.js';
import {
  type ClaimRecord,
  type ClaimsFile,
  emptyClaimsFile,
  type Lease,
  MAX_FAILURE_REASONS,
} from './claims-schema.js';
import { StaleLeaseError } from './errors.js';
import { leaseProblem } from './lease-limits.js';

/**
 * The claim rules as pure functions of (state, now): every store runs them inside its own
 * transaction, so memory and file stores cannot drift apart. A function returns `next` only when
 * the state changed; the caller writes nothing otherwise.
 */
export interface Transaction<T> {
  result: T;
  next?: ClaimsFile;
}

export interface RuleContext {
  now: number;
  maxFailures: number;
  redact: Redactor;
}

const MAX_MESSAGE_LENGTH = 300;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A lease counts while it has not expired, unless it reaches further ahead than any store grants. */
function isLive(lease: Lease | null, now: number): boolean {
  return lease !== null && Date.parse(lease.expires_at) > now && leaseProblem(lease, now) === undefined;
}

export function holderOf(lease: Lease): Holder {
  return { owner: lease.owner, token: lease.token, expires_at: lease.expires_at };
}

/** An issue the store has never seen: no lease, no history. */
export function blankRecord(issue: number): ClaimRecord {
  return {
    issue,
    lease: null,
    failure_count: 0,
    last_failure_at: null,
    failure_reasons: [],
    attempts: 0,
    last_outcome: null,
    interrupted_at: null,
    partial_context: null,
    hint: null,
  };
}

/**
 * The last outcome a release records for a refusal that needs a person (the change touched
 * `protected_paths`): the item needs a human at once, not after `max_failures`, until its failures
 * are reset (`issueloop claims reset-failures`).
 */
export const REFUSED_NEEDS_HUMAN = 'refused_needs_human';

/** Whether a person must look before the item is worked again. */
export function needsHumanNow(record: ClaimRecord, maxFailures: number): boolean {
  return (
    record.failure_count >= maxFailures ||
    (record.last_outcome === REFUSED_NEEDS_HUMAN && record.failure_count > 0)
  );
}

export function viewOf(record: ClaimRecord, ctx: Pick<RuleContext, 'now' | 'maxFailures'>): ClaimView {
  return {
    ...record,
    lease: isLive(record.lease, ctx.now) ? record.lease : null,
    needs_human: needsHumanNow(record, ctx.maxFailures),
  };
}

/** Seed 004: stale leases (expired, or beyond the maximum TTL) are cleaned lazily, at the start of every claim. */
function expireLeases(state: ClaimsFile, now: number): { next: ClaimsFile; expired: Lease[] } {
  const expired: Lease[] = [];
  const next = structuredClone(state);
  for (const record of Object.values(next.issues)) {
    if (record.lease && !isLive(record.lease, now)) {
      expired.push(record.lease);
      record.lease = null;
    }
  }
  return { next, expired };
}

export function claimIssue(
  state: ClaimsFile,
  issue: number,
  owner: string,
  ttlMs: number,
  ctx: RuleContext,
): Transaction<ClaimResult> {
  const { next, expired } = expireLeases(state, ctx.now);
  const record = next.issues[issue] ?? blankRecord(issue);
  if (record.lease) {
    return { result: { ok: false, heldBy: holderOf(record.lease) }, ...(expired.length ? { next } : {}) };
  }
  const lease: Lease = {
    issue,
    owner,
    token: next.next_token,
    claimed_at: iso(ctx.now),
    expires_at: iso(ctx.now + ttlMs),
    ttl_ms: ttlMs,
  };
  next.next_token += 1;
  next.issues[issue] = { ...record, lease, attempts: record.attempts + 1 };
  return { result: { ok: true, lease }, next };
}

/** Why `lease` is no longer the issue's live lease, or undefined when it still is. */
function staleness(state: ClaimsFile, lease: Lease, now: number): StaleLeaseError | undefined {
  const current = state.issues[lease.issue]?.lease ?? null;
  if (!current) return new StaleLeaseError(lease.issue, lease.token, undefined, 'the issue is not claimed');
  if (current.token !== lease.token || current.owner !== lease.owner) {
    return new StaleLeaseError(lease.issue, lease.token, holderOf(current), 'another lease replaced it');
  }
  const problem = leaseProblem(current, now);
  if (problem) {
    return new StaleLeaseError(lease.issue, lease.token, undefined, `the stored lease ${problem}`);
  }
  if (!isLive(current, now)) {
    return new StaleLeaseError(lease.issue, lease.token, undefined, `it expired at ${current.expires_at}`);
  }
  return undefined;
}

export function renewLease(state: ClaimsFile, lease: Lease, ctx: RuleContext): Transaction<Lease> {
  const stale = staleness(state, lease, ctx.now);
  if (stale) throw stale;
  const next = structuredClone(state);
  const record = next.issues[lease.issue] as ClaimRecord;
  // Built from the stored lease, not the caller's copy: a renewal changes nothing but the expiry.
  const stored = record.lease as Lease;
  const renewed: Lease = { ...stored, expires_at: iso(ctx.now + stored.ttl_ms) };
  record.lease = renewed;
  return { result: renewed, next };
}

/** The first non-blank line, trimmed and capped: what a failure reason keeps. */
export function oneLine(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, MAX_MESSAGE_LENGTH);
}

function addFailure(record: ClaimRecord, failure: FailureInput, ctx: RuleContext): void {
  const at = iso(ctx.now);
  record.failure_count += 1;
  record.last_failure_at = at;
  record.failure_reasons = [
    ...record.failure_reasons,
    { at, error_class: failure.errorClass, message: oneLine(ctx.redact(failure.message)) },
  ].slice(-MAX_FAILURE_REASONS);
}

/**
 * Ends a live lease and records how the attempt ended. With a stale lease nothing about the lease
 * or the outcome changes (the issue may be someone else's now) and the result is the error to
 * throw, but a failure is still counted: it describes the issue, and losing it would let an issue
 * whose sessions always overrun their lease escape `max_failures`.
 */
export function releaseLease(
  state: ClaimsFile,
  lease: Lease,
  outcome: ReleaseOutcome,
  ctx: RuleContext,
): Transaction<StaleLeaseError | undefined> {
  const stale = staleness(state, lease, ctx.now);
  const next = structuredClone(state);
  if (stale) {
    if (!outcome.failure) return { result: stale };
    const record = next.issues[lease.issue] ?? blankRecord(lease.issue);
    addFailure(record, outcome.failure, ctx);
    next.issues[lease.issue] = record;
    return { result: stale, next };
  }
  const record = next.issues[lease.issue] as ClaimRecord;
  record.lease = null;
  record.last_outcome = outcome.outcome;
  if (outcome.failure) addFailure(record, outcome.failure, ctx);
  // The resume context is for the next attempt only; any other ending has used it up.
  const interrupted = outcome.outcome === 'interrupted';
  record.interrupted_at = interrupted ? iso(ctx.now) : null;
  record.partial_context = interrupted ? ctx.redact(outcome.partialContext ?? '') : null;
  // Like the resume context, a hint is for the next attempt only; an interruption keeps the old one.
  if (!interrupted) record.hint = outcome.hint ? ctx.redact(outcome.hint) : null;
  return { result: undefined, next };
}

export function recordFailure(
  state: ClaimsFile,
  issue: number,
  failure: FailureInput,
  ctx: RuleContext,
): Transaction<ClaimView> {
  const next = structuredClone(state);
  const record = next.issues[issue] ?? blankRecord(issue);
  addFailure(record, failure, ctx);
  next.issues[issue] = record;
  return { result: viewOf(record, ctx), next };
}

export function importHistory(
  state: ClaimsFile,
  issue: number,
  history: ImportedHistory,
  ctx: RuleContext,
): Transaction<boolean> {
  if (state.issues[issue]) return { result: false };
  const count = (n: number) => (Number.isSafeInteger(n) && n > 0 ? n : 0);
  const reasons = history.failure_reasons.slice(-MAX_FAILURE_REASONS).map((reason) => ({
    at: iso(Number.isNaN(Date.parse(reason.at)) ? ctx.now : Date.parse(reason.at)),
    error_class: reason.error_class,
    message: oneLine(ctx.redact(reason.message)),
  }));
  const next = structuredClone(state);
  next.issues[issue] = {
    ...blankRecord(issue),
    attempts: count(history.attempts),
    // Never fewer than the reasons it lists: a count is what escalates an issue.
    failure_count: Math.max(count(history.failure_count), reasons.length),
    last_failure_at: reasons.at(-1)?.at ?? null,
    failure_reasons: reasons,
    last_outcome: history.last_outcome,
  };
  return { result: true, next };
}

export function resetFailures(state: ClaimsFile, issue: number): Transaction<boolean> {
  const record = state.issues[issue];
  if (!record || (record.failure_count === 0 && record.failure_reasons.length === 0)) {
    return { result: false };
  }
  const next = structuredClone(state);
  next.issues[issue] = { ...record, failure_count: 0, last_failure_at: null, failure_reasons: [] };
  return { result: true, next };
}

export function forceRelease(state: ClaimsFile, issue: number, now: number): Transaction<Lease | undefined> {
  const record = state.issues[issue];
  if (!record?.lease) return { result: undefined };
  const next = structuredClone(state);
  (next.issues[issue] as ClaimRecord).lease = null;
  return { result: isLive(record.lease, now) ? record.lease : undefined, next };
}

export function clearAll(state: ClaimsFile, now: number): Transaction<ClearSummary> {
  const records = Object.values(state.issues);
  const leases = records.filter((r) => isLive(r.lease, now)).length;
  return { result: { leases, issues: records.length }, next: emptyClaimsFile(state.next_token) };
}

/**
 * A recorded failure for people: `network: connect ECONNREFUSED …`. A message that already starts
 * with its class (a session's reason often does) is not prefixed twice.
 */
export function failureText(reason: { error_class: string; message: string }): string {
  const prefix = `${reason.error_class}: `;
  return reason.message.startsWith(prefix) ? reason.message : `${prefix}${reason.message}`;
}

/** `1 failure`, `3 failures`. */
export function failureCount(count: number): string {
  return `${count} ${count === 1 ? 'failure' : 'failures'}`;
}
