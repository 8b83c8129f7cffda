import type { ClaimStore, Lease } from '../claims/claim-store.js';
import type { Config } from '../config/schema.js';
import type { Deps } from '../core/deps.js';
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
  const before = await claims.get(issue.number);
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
    quietly(ctx, `tracking comment of #${issue.number}`, () =>
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
  await claims.release(keeper.current(), {
    outcome: report.outcome,
    ...(failed ? { failure: { errorClass: failureClassOf(report.outcome), message: report.reason } } : {}),
    ...(report.outcome === 'interrupted' ? { partialContext: report.partialContext } : {}),
    ...(report.hint ? { hint: report.hint } : {}),
  });
  const after = await claims.get(issue.number);
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
