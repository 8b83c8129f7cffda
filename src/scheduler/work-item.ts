import type { LastFailure } from '../agent/first-message.js';
import type { ClaimStore, ClaimView, Lease, ReleaseOutcome } from '../claims/claim-store.js';
import { REFUSED_NEEDS_HUMAN } from '../claims/claims-state.js';
import { StaleLeaseError } from '../claims/errors.js';
import type { SpendLedger } from '../claims/spend-ledger.js';
import type { Config } from '../config/schema.js';
import { computeBackoff } from '../core/backoff.js';
import { classifyError } from '../core/classify/classify-error.js';
import type { Deps } from '../core/deps.js';
import { safeDestination, safeRole } from '../core/destination-text.js';
import type { Log } from '../core/logger.js';
import { type SpanHandle, telemetry } from '../core/telemetry.js';
import { ISSUELOOP } from '../core/telemetry-names.js';
import type { Ledger } from '../session/ledger.js';
import { failureClassOf, isFailure, type Outcome } from '../session/outcome.js';
import type { SessionInput, SessionReport } from '../session/session-report.js';
import { type AttemptsWidth, type RanWork, recordWork, runWork } from './attempts-record.js';
import { keepLease } from './lease-keeper.js';
import type { ProgressSink } from './progress.js';
import type { RunCause } from './run-failure.js';
import type { WorkItem, WorkSource } from './work-source.js';

// biome-ignore lint/suspicious/noExplicitAny: a context is made for one source; runRounds is generic over it.
export interface WorkContext<T extends WorkItem = any>
  extends Pick<SessionInput, 'checkout' | 'worktreesDir' | 'repo' | 'models' | 'env' | 'redact' | 'sandbox'> {
  config: Config;
  /** The backlog: GitHub issues or a task file's tasks. */
  source: WorkSource<T>;
  claims: ClaimStore;
  /** The spend caps shared through the claim store (`budget.*`); absent when none is set. */
  spend?: SpendLedger;
  deps: Pick<Deps, 'clock' | 'random' | 'log'>;
  ledger: Ledger;
  /** The run's interrupt: aborts every session. */
  signal: AbortSignal;
  progress?: ProgressSink;
  /**
   * The run's judge of failures that are its own (runRounds passes its monitor): a cause means the item
   * is not charged. Without one, every failure is the item's.
   */
  judge?: (report: SessionReport) => RunCause | undefined;
}

/** The session's spend reservation (spend-gate.ts `holdReservation`): renewed with the lease, settled when it reports. */
export interface SessionReservation {
  renew(): Promise<void>;
  ended(report: SessionReport): Promise<void>;
}

/** Attempts at recording an outcome while the claim store is unreachable, with backoff between them. */
export const RELEASE_ATTEMPTS = 4;

/**
 * Records how the session ended. A lease lost meanwhile (expired, taken over) is not ours to end:
 * the store has counted any failure anyway, and the run goes on. A store that cannot be reached is
 * tried again with backoff; after that the outcome is lost, logged and put in the ledger, and the
 * lease lapses by itself at its TTL.
 */
async function releaseClaim(
  ctx: WorkContext,
  lease: Lease,
  log: Log,
  outcome: ReleaseOutcome,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.claims.release(lease, outcome);
      return;
    } catch (err) {
      if (err instanceof StaleLeaseError) {
        log.warn({ issue: lease.issue }, `${err.message}; the outcome ${outcome.outcome} was not recorded`);
        await ctx.ledger.append('release_stale', { issue: lease.issue, outcome: outcome.outcome });
        return;
      }
      const failure = classifyError(err, { now: ctx.deps.clock.now(), redact: ctx.redact });
      if (failure.errorClass !== 'network') throw err;
      if (attempt >= RELEASE_ATTEMPTS) {
        log.error(
          { issue: lease.issue },
          `could not record the outcome ${outcome.outcome} of #${lease.issue}: ${failure.message}; its lease lapses at ${lease.expires_at}`,
        );
        await ctx.ledger.append('release_failed', {
          issue: lease.issue,
          outcome: outcome.outcome,
          message: failure.message,
        });
        return;
      }
      // Not abortable: an interrupted run still wants its outcome recorded.
      await ctx.deps.clock.sleep(computeBackoff(attempt, {}, ctx.deps.random));
    }
  }
}

/** The issue's claim record; `readable: false` while the store is unreachable. */
async function readClaim(
  ctx: WorkContext,
  issue: number,
  log: Log,
): Promise<{ view: ClaimView | undefined; readable: boolean }> {
  try {
    return { view: await ctx.claims.get(issue), readable: true };
  } catch (err) {
    const failure = classifyError(err, { now: ctx.deps.clock.now(), redact: ctx.redact });
    if (failure.errorClass !== 'network') throw err;
    log.warn({ issue }, `could not read the claim of #${issue}: ${failure.message}`);
    return { view: undefined, readable: false };
  }
}

/**
 * One claimed item (an issue, a task): the lease kept alive, the source's tracker told of each phase,
 * the session, then the outcome recorded — success releases the claim; a failure releases the lease
 * and keeps the failure; after `max_failures` the item goes to a human; an interruption is not a
 * failure and leaves its partial context for the next attempt.
 */
export function workItem<T extends WorkItem>(
  ctx: WorkContext<T>,
  item: T,
  lease: Lease,
  reservation?: SessionReservation,
  width: AttemptsWidth = { n: 1, slots: 1 },
): Promise<SessionReport> {
  return telemetry().span('issueloop.session', { [ISSUELOOP.issue]: item.number }, async (span) => {
    const report = await workItemIn(ctx, item, lease, span, reservation, width);
    recordSession(span, report);
    return report;
  });
}

async function workItemIn<T extends WorkItem>(
  ctx: WorkContext<T>,
  item: T,
  lease: Lease,
  span: SpanHandle,
  reservation: SessionReservation | undefined,
  width: AttemptsWidth,
): Promise<SessionReport> {
  const { claims } = ctx;
  const log = ctx.deps.log.child(item.logFields ?? { issue: item.number });
  const first = await readClaim(ctx, item.number, log);
  const before = first.view;
  let readable = first.readable;
  // `claim` has counted this attempt already.
  const attempt = before?.attempts ?? 1;
  span.set({ [ISSUELOOP.attempt]: attempt });
  const tracker = ctx.source.track(item, {
    attempt,
    before,
    readable: () => readable,
    log,
    ledger: ctx.ledger,
  });

  const controller = new AbortController();
  const onRunAbort = () => controller.abort(ctx.signal.reason);
  // An interrupt between the claim and here must still reach the session.
  if (ctx.signal.aborted) onRunAbort();
  else ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  const keeper = keepLease(claims, lease, {
    log,
    onLost: (why) => controller.abort(new Error(why)),
    onRenewed: () => void reservation?.renew(),
  });
  await ctx.ledger.append('claim', { issue: item.number, attempt, token: lease.token });
  ctx.progress?.started?.(item.number, item.title);
  ctx.progress?.phase(item.number, 'claimed');
  // Not awaited here: with four claims, their paced board and comment writes would hold the fourth
  // session back by a dozen seconds. The outcome is tracked after them.
  const claimTracking = tracker.claimed().catch((err: unknown) => {
    log.warn({ err: ctx.redact((err as Error).message) }, 'tracking the claim failed; continuing');
  });

  let ran: RanWork;
  try {
    const interrupted =
      before?.last_outcome === 'interrupted' ? (before.partial_context ?? undefined) : undefined;
    const hint = before?.hint ?? undefined;
    const lastFailure = lastFailureOf(before);
    const resume = {
      ...(interrupted ? { interruptedContext: interrupted } : {}),
      ...(hint ? { hint } : {}),
      ...(lastFailure ? { lastFailure } : {}),
    };
    ran = await runWork(width, {
      ...ctx,
      work: ctx.source.session(item),
      attempt,
      resume,
      signal: controller.signal,
      onEvent: (event) => ctx.progress?.event(item.number, event),
      onPhase: (phase) => {
        ctx.progress?.phase(item.number, phase);
        tracker.phase(phase);
      },
    });
  } finally {
    keeper.stop();
    ctx.signal.removeEventListener('abort', onRunAbort);
  }
  const { report } = ran;

  ctx.progress?.done(item.number, report.outcome, report.bestOf);
  // A failure that is the run's (a refused credential, billing) is not charged to the item: its claim
  // is released as an interrupted one, first in line once the run can work again.
  const paused = ctx.judge?.(report);
  // What the session cost and did is kept first: the work after it may still throw.
  await reservation?.ended(report);
  await recordWork(ctx, tracker, ran, paused);
  const recorded = paused ? 'interrupted' : report.outcome;
  const failed = isFailure(recorded);
  await releaseClaim(ctx, keeper.current(), log, {
    outcome: report.needsHuman && !paused ? REFUSED_NEEDS_HUMAN : recorded,
    ...(failed ? { failure: { errorClass: failureClassOf(report.outcome), message: report.reason } } : {}),
    ...(recorded === 'interrupted' ? { partialContext: report.partialContext } : {}),
    ...(report.hint ? { hint: report.hint } : {}),
  });
  const afterRead = await readClaim(ctx, item.number, log);
  if (!afterRead.readable) readable = false;
  const after = afterRead.view;
  await ctx.ledger.append('outcome', {
    issue: item.number,
    attempt,
    outcome: report.outcome,
    reason: report.reason,
    pr: report.pr?.url,
    commit: report.commit,
    costUsd: report.costUsd,
    durationMs: report.durationMs,
    modelCalls: report.modelCalls,
    toolCalls: report.toolCalls,
    filesChanged: report.filesChanged.length,
    productivity: report.productivity.score,
    ...(paused ? { paused: paused.errorClass } : {}),
    ...(report.blockedRequests?.length ? { blockedRequests: ledgerBlocked(report.blockedRequests) } : {}),
    ...(report.blockedOthers ? { blockedOthers: report.blockedOthers } : {}),
  });
  if (report.productivity.warning)
    log.warn({ score: report.productivity.score }, report.productivity.warning);
  await claimTracking;
  await tracker.finished(report, after, paused);
  if (report.outcome !== 'resolved' && after?.needs_human) {
    await ctx.ledger.append('needs_human', { issue: item.number, failures: after.failure_count });
  }
  return report;
}

/**
 * How the previous attempt failed, when it did (issue 32): the record's newest failure reason, kept
 * with that attempt's outcome. Not after an interruption (its context goes instead), a success, or a
 * plan waiting for review; nor once failures were cleared (`/issueloop retry`).
 */
export function lastFailureOf(before: ClaimView | undefined): LastFailure | undefined {
  const outcome = before?.last_outcome;
  const newest = before?.failure_reasons.at(-1);
  if (!outcome || !newest || !isFailure(outcome as Outcome)) return undefined;
  return { errorClass: newest.error_class, message: newest.message };
}

/** The session's outcome and cost on its span, and in the session metrics. */
function recordSession(span: SpanHandle, report: SessionReport): void {
  const outcome = { [ISSUELOOP.outcome]: report.outcome };
  span.set({ ...outcome, [ISSUELOOP.costUsd]: report.costUsd, [ISSUELOOP.model]: report.model });
  if (report.outcome !== 'resolved') span.fail(report.outcome);
  const t = telemetry();
  t.count(ISSUELOOP.sessions, 1, outcome);
  t.record(ISSUELOOP.sessionCost, report.costUsd, outcome);
  t.record(ISSUELOOP.sessionDuration, report.durationMs / 1000, outcome);
}

/** Refused destinations as the ledger keeps them: shown text only (see core/destination-text.ts). */
function ledgerBlocked(blocked: NonNullable<SessionReport['blockedRequests']>) {
  return blocked.map((b) => ({
    role: safeRole(b.role),
    destination: safeDestination(b.destination),
    count: b.count,
  }));
}
