import type { ClaimStore, ClaimView, Lease, ReleaseOutcome } from '../claims/claim-store.js';
import { StaleLeaseError } from '../claims/errors.js';
import type { Config } from '../config/schema.js';
import { computeBackoff } from '../core/backoff.js';
import { classifyError } from '../core/classify/classify-error.js';
import type { Deps } from '../core/deps.js';
import type { Log } from '../core/logger.js';
import type { GitHubAdapter } from '../github/adapter.js';
import type { BoardPhase } from '../github/board/board-state.js';
import type { BacklogIssue } from '../github/issue-shape.js';
import { emptyTrackingRecord, type TrackingPhase, type TrackingRecord } from '../github/tracking-comment.js';
import type { Ledger } from '../session/ledger.js';
import { failureClassOf, isFailure } from '../session/outcome.js';
import { runSession, type SessionInput, type SessionReport } from '../session/run-session.js';
import { keepLease } from './lease-keeper.js';
import type { ProgressSink } from './progress.js';

export const IN_PROGRESS_LABEL = 'issueloop:in-progress';
export const NEEDS_HUMAN_LABEL = 'issueloop:needs-human';

export interface WorkContext
  extends Pick<
    SessionInput,
    'checkout' | 'remote' | 'baseBranch' | 'worktreesDir' | 'repo' | 'models' | 'env' | 'redact'
  > {
  config: Config;
  github: GitHubAdapter;
  claims: ClaimStore;
  deps: Pick<Deps, 'clock' | 'random' | 'log'>;
  ledger: Ledger;
  /** The run's interrupt: aborts every session. */
  signal: AbortSignal;
  progress?: ProgressSink;
}

/** Board and tracking comment never fail a session: their errors are logged and the work goes on. */
async function quietly(ctx: WorkContext, what: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    ctx.deps.log.warn({ err: ctx.redact((err as Error).message) }, `${what} failed; continuing`);
  }
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

function boardMove(ctx: WorkContext, issue: BacklogIssue, phase: BoardPhase): Promise<void> {
  const board = ctx.github.board;
  if (!board) return Promise.resolve();
  return quietly(ctx, `board move of #${issue.number} to ${phase}`, async () => {
    await board.setStatus({ number: issue.number, nodeId: issue.nodeId }, phase);
    await ctx.ledger.append('board_move', { issue: issue.number, phase });
  });
}

/**
 * One claimed issue: the lease kept alive, tracking comment, label and board following each phase,
 * the session, then the outcome recorded — success releases the claim; a failure releases the lease
 * and keeps the failure; after `max_failures` the issue goes to a human; an interruption is not a
 * failure and leaves its partial context for the next attempt.
 */
export async function workIssue(ctx: WorkContext, issue: BacklogIssue, lease: Lease): Promise<SessionReport> {
  const { claims, github, redact } = ctx;
  const log = ctx.deps.log.child({ issue: issue.number });
  const first = await readClaim(ctx, issue.number, log);
  const before = first.view;
  let readable = first.readable;
  // `claim` has counted this attempt already.
  const attempt = before?.attempts ?? 1;
  const nowIso = () => new Date(ctx.deps.clock.now()).toISOString();
  const record = (): TrackingRecord => ({
    ...emptyTrackingRecord(nowIso()),
    attempts: attempt,
    failure_count: before?.failure_count ?? 0,
    failure_reasons: (before?.failure_reasons ?? []).map((f) => ({ ...f })),
    last_outcome: before?.last_outcome ?? null,
  });
  const track = (
    phase: TrackingPhase,
    extra: { prUrl?: string; costUsd?: number; lastFailure?: string; record?: TrackingRecord } = {},
  ) =>
    // Without the store's record the comment's hidden history would be overwritten with a blank one.
    !readable
      ? Promise.resolve()
      : quietly(ctx, `tracking comment of #${issue.number}`, () =>
          github.tracking.upsert(issue.number, {
            phase,
            attempt,
            model: ctx.config.model.primary,
            record: record(),
            ...extra,
          }),
        );

  const controller = new AbortController();
  const onRunAbort = () => controller.abort(ctx.signal.reason);
  // An interrupt between the claim and here must still reach the session.
  if (ctx.signal.aborted) onRunAbort();
  else ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  const keeper = keepLease(claims, lease, { log, onLost: (why) => controller.abort(new Error(why)) });
  await ctx.ledger.append('claim', { issue: issue.number, attempt, token: lease.token });
  ctx.progress?.started?.(issue.number, issue.title);
  ctx.progress?.phase(issue.number, 'claimed');
  await boardMove(ctx, issue, 'working');
  await track('working');
  await quietly(ctx, 'in-progress label', async () => {
    await github.labels.ensureLabel(IN_PROGRESS_LABEL);
    await github.labels.addLabels(issue.number, [IN_PROGRESS_LABEL]);
  });

  let report: SessionReport;
  try {
    const interrupted =
      before?.last_outcome === 'interrupted' ? (before.partial_context ?? undefined) : undefined;
    const hint = before?.hint ?? undefined;
    const resume = { ...(interrupted ? { interruptedContext: interrupted } : {}), ...(hint ? { hint } : {}) };
    report = await runSession({
      ...ctx,
      issue,
      attempt,
      resume,
      github,
      signal: controller.signal,
      onEvent: (event) => ctx.progress?.event(issue.number, event),
      onPhase: (phase) => {
        ctx.progress?.phase(issue.number, phase);
        if (phase === 'verifying') void track('verifying');
      },
    });
  } finally {
    keeper.stop();
    ctx.signal.removeEventListener('abort', onRunAbort);
  }

  ctx.progress?.done(issue.number, report.outcome);
  const failed = isFailure(report.outcome);
  await releaseClaim(ctx, keeper.current(), log, {
    outcome: report.outcome,
    ...(failed ? { failure: { errorClass: failureClassOf(report.outcome), message: report.reason } } : {}),
    ...(report.outcome === 'interrupted' ? { partialContext: report.partialContext } : {}),
    ...(report.hint ? { hint: report.hint } : {}),
  });
  const afterRead = await readClaim(ctx, issue.number, log);
  if (!afterRead.readable) readable = false;
  const after = afterRead.view;
  await ctx.ledger.append('outcome', {
    issue: issue.number,
    attempt,
    outcome: report.outcome,
    reason: report.reason,
    pr: report.pr?.url,
    costUsd: report.costUsd,
    durationMs: report.durationMs,
    modelCalls: report.modelCalls,
    toolCalls: report.toolCalls,
    filesChanged: report.filesChanged.length,
    productivity: report.productivity.score,
  });
  if (report.productivity.warning)
    log.warn({ score: report.productivity.score }, report.productivity.warning);
  await quietly(ctx, 'in-progress label', () => github.labels.removeLabel(issue.number, IN_PROGRESS_LABEL));

  const finalRecord: TrackingRecord = {
    ...record(),
    failure_count: after?.failure_count ?? 0,
    failure_reasons: (after?.failure_reasons ?? []).map((f) => ({ ...f })),
    last_outcome: report.outcome,
  };
  const cost = { costUsd: report.costUsd, record: finalRecord };
  if (report.outcome === 'resolved') {
    await boardMove(ctx, issue, 'review');
    await track('review', { ...cost, ...(report.pr ? { prUrl: report.pr.url } : {}) });
  } else if (after?.needs_human) {
    await quietly(ctx, 'needs-human label', async () => {
      await github.labels.ensureLabel(NEEDS_HUMAN_LABEL);
      await github.labels.addLabels(issue.number, [NEEDS_HUMAN_LABEL]);
    });
    await boardMove(ctx, issue, 'blocked');
    await track('blocked', { ...cost, lastFailure: redact(report.reason) });
    await ctx.ledger.append('needs_human', { issue: issue.number, failures: after.failure_count });
  } else {
    await boardMove(ctx, issue, 'queued');
    await track(report.outcome === 'interrupted' ? 'queued' : 'failed', {
      ...cost,
      ...(failed ? { lastFailure: redact(report.reason) } : {}),
    });
  }
  return report;
}
