import { rm } from 'node:fs/promises';
import { classifyError } from '../core/classify/classify-error.js';
import { cleanBlocked } from '../core/destination-text.js';
import type { EngineResult } from '../engines/engine.js';
import { openSessionEngine } from '../engines/open-engine.js';
import { GitTamperedError } from './git/git-state.js';
import { addWorktree, GitError, removeWorktree, resetBranch, topLevelNames } from './git/index.js';
import { outcomeOfStop } from './outcome.js';
import type { SessionInput, SessionReport } from './session-report.js';
import { createSessionState, type SessionState } from './session-state.js';
import { type PlanStep, type Prepared, ReadBackError, type SessionWork } from './session-work.js';
import { validateWork } from './validate.js';
import { describeSetupFailure, runVerify } from './verify.js';
import { type GuardedWorktree, guardWorktree } from './worktree-guard.js';

/**
 * One claimed piece of work end to end: a worktree on the work's branch (`issueloop/issue-<n>` from a
 * freshly fetched base, or a task file's branch), the engine, then validation by the harness — a
 * non-empty diff, the verify command (with fix-up turns) — and delivery (commit, push, draft PR and a
 * read-back from GitHub; or a commit on the task file's branch). Failures end as an outcome with
 * evidence, never as an exception, except a broken harness (a bug) which the caller records as
 * `error:unknown`.
 */
export async function runSession(input: SessionInput): Promise<SessionReport> {
  const state = createSessionState(input);
  try {
    input.onPhase?.('working');
    const prepared = await prepareWorktree(state);
    if ('report' in prepared) return prepared.report;
    const { guarded, base, harness } = prepared;
    /** A turn of the agent, which is started (with the work's first message) on the first one. */
    const turn = async (message?: string) => {
      if (state.engine) return state.turn(message ?? '');
      await openEngine(state, guarded);
      const first = input.work.firstMessage(input.resume);
      return state.turn(message === undefined ? first : `${first}\n\n${message}`);
    };
    const planning = input.work.planOnly?.();
    const first = harness.agent ? await turn() : undefined;
    if (planning) return await postPlan(state, planning, first);
    const failed = await validateWork(state, first, guarded, {
      base,
      git: guarded.git,
      turn,
      merging: harness.mergeParent !== undefined,
    });
    if (failed) return failed;
    return await deliver(state, guarded, { base, harness });
  } catch (err) {
    return failureReport(state, err);
  } finally {
    await cleanUp(state);
  }
}

/** The worktree on the work's branch, guarded for the agent, with `session.setup` run in it. */
async function prepareWorktree(
  state: SessionState,
): Promise<{ guarded: GuardedWorktree; base: string; harness: Prepared } | { report: SessionReport }> {
  const { input, git } = state;
  const { work, config } = input;
  const base = await work.startPoint(git);
  await addWorktree(
    { checkout: input.checkout, path: state.worktree, branch: work.branch, startPoint: base },
    git,
  );
  state.startedAt = base;
  // Before the sandbox and the git snapshot: what the harness does here is part of the start.
  const harness: Prepared = work.prepare ? await work.prepare(state.worktree, git) : { agent: true };
  if (harness.refused) {
    state.keep = true;
    return { report: state.report('refused', harness.refused) };
  }
  const guarded = await guardWorktree({
    path: state.worktree,
    branch: work.branch,
    agentGitDir: state.agentGitDir,
    git,
    sandbox: input.sandbox,
    env: input.env,
    redactEnv: config.redact_env,
    protectedPaths: config.protected_paths,
    log: state.log,
    remember: state.remember,
    ...(config.session.setup ? { setupBase: await setupBaseNames(state, base) } : {}),
  });
  state.worktree = guarded.worktree;
  state.sandboxes = guarded.sandboxes;
  // A plan session only reads: the repository's setup scripts need not run for it.
  if (!config.session.setup || work.planOnly?.()) return { guarded, base, harness };
  const setup = await runVerify(config.session.setup, {
    cwd: state.worktree,
    env: state.scrubbed,
    timeoutMs: config.session.setup_timeout,
    signal: input.signal,
    clock: input.deps.clock,
    sandbox: await guarded.sandboxes.setup(),
  });
  state.remember('setup', { passed: setup.passed, exitCode: setup.exitCode, durationMs: setup.durationMs });
  if (input.signal.aborted) return { report: state.report('interrupted', 'interrupted during setup') };
  if (setup.passed) return { guarded, base, harness };
  if (harness.agent && harness.mergeParent) {
    // A conflicted merge (a package.json with markers) may well break setup: the agent resolves it.
    state.log.warn(describeSetupFailure(setup));
    return { guarded, base, harness };
  }
  state.keep = true;
  return { report: state.report('error:invalid_request', describeSetupFailure(setup)) };
}

/**
 * The top level of the base branch's revision (the start point, or the work's `setupBase`), where
 * `setup_domains: [auto]` detects the registries: a follow-up's agent cannot widen them.
 */
async function setupBaseNames(state: SessionState, start: string): Promise<string[]> {
  const { work, checkout } = state.input;
  const rev = work.setupBase ? await work.setupBase(state.git) : start;
  return topLevelNames(checkout, rev, state.git);
}

async function openEngine(state: SessionState, guarded: GuardedWorktree): Promise<void> {
  const { input } = state;
  const { work, config } = input;
  const opened = await openSessionEngine({
    name: work.engine ?? config.engine,
    worktree: state.worktree,
    repo: input.repo,
    branch: work.branch,
    rawBody: work.rawBody,
    task: work.task,
    subject: work.subject,
    boot: work.boot,
    thread: work.thread?.from,
    readOnly: work.planOnly?.() !== undefined,
    config,
    models: input.models,
    env: input.env,
    redact: input.redact,
    clock: input.deps.clock,
    log: state.log,
    observer: state.observer,
    signal: input.signal,
    sandboxes: guarded.sandboxes,
    started: state.started,
    currentModel: () => state.model,
    onFallback: (failed) => {
      // Claude Code's turn is the session's evidence until the native engine's first answer replaces it.
      state.result = failed.result;
      state.messages = failed.messages;
      state.model = failed.model;
      state.remember('engine_fallback', {
        from: 'claude-code',
        to: 'native',
        errorClass: failed.failureClass,
      });
    },
  });
  state.engine = opened.engine;
  if (opened.scratch) state.scratch = opened.scratch;
  state.closeEngine = opened.close;
}

/**
 * Validated work handed over (commit, push, draft PR; or the task file's branch), unless it adds a
 * secret. Work the harness did alone (a clean merge of the base) is handed over with its summary.
 */
async function deliver(
  state: SessionState,
  guarded: GuardedWorktree,
  start: { base: string; harness: Prepared },
): Promise<SessionReport> {
  const { input } = state;
  const result = state.result;
  if (!result && start.harness.agent) throw new Error('deliver: the engine has not run');
  input.onPhase?.('publishing');
  // The verify command ran in the sandbox too, and a fix-up turn may have followed it.
  await guarded.reclaim();
  // Before the secret scan: a workflow change goes to a person whatever else it holds.
  const touched = await guarded.protectedInDiff({
    start: start.base,
    ...(start.harness.scanFrom ? { merged: start.harness.scanFrom } : {}),
  });
  if (touched) {
    state.keep = true;
    return state.report('refused', touched.reason, { needsHuman: true });
  }
  const secret = await guarded.secretsInDiff(start.harness.scanFrom ?? start.base);
  if (secret) {
    state.keep = true;
    return state.report('refused', secret);
  }
  const { reason, ...handedOver } = await input.work.deliver(
    {
      worktree: state.worktree,
      summary: result?.finalText ?? start.harness.summary ?? '',
      filesChanged: state.filesChanged,
      ...(state.verify ? { verify: state.verify } : {}),
      costUsd: result?.totals.costUsd ?? 0,
      model: state.model,
      modelCalls: result?.totals.modelCalls ?? 0,
      toolCalls: result?.totals.toolCalls ?? 0,
      blockedRequests: cleanBlocked(guarded.sandboxes.blocked(), input.redact),
      blockedOthers: guarded.sandboxes.blockedOthers?.() ?? 0,
    },
    guarded.git,
  );
  state.delivered = true;
  if (input.work.thread && state.engine) await carryThread(state, input.work.thread);
  return state.report('resolved', reason, handedOver);
}

/** A plan session's end: its plan posted (nothing verified, committed or pushed), or how it stopped. */
async function postPlan(state: SessionState, step: PlanStep, first: EngineResult | undefined) {
  const stopped = first ? outcomeOfStop(first.stop, first.error) : undefined;
  if (!first || stopped) return state.report(stopped ?? 'no_changes', first?.reason ?? 'no plan was written');
  // An empty final message is no plan: never posted as an empty comment for a maintainer to answer.
  if (first.finalText.trim() === '')
    return state.report('no_changes', 'the plan session ended without a plan (its final message was empty)');
  state.input.onPhase?.('publishing');
  return state.report('plan_review', await step.post(first.finalText));
}

/**
 * Hands the conversation to the group's next task. The work is already delivered, so nothing here
 * may fail the session: a carry that throws breaks the thread and the next task starts fresh.
 */
async function carryThread(state: SessionState, thread: NonNullable<SessionWork['thread']>): Promise<void> {
  try {
    const next = await (state.engine as NonNullable<SessionState['engine']>).carry();
    if (next.result) state.result = next.result;
    thread.keep(next.carry);
  } catch (err) {
    state.log.warn(
      { err: (err as Error).message },
      'could not carry the conversation to the next task; it starts fresh',
    );
  }
}

/** A session that threw: interrupted, a read-back that disagrees, tampered git, or a classified failure. */
function failureReport(state: SessionState, err: unknown): SessionReport {
  const { input, log } = state;
  state.keep = true;
  if (input.signal.aborted) return state.report('interrupted', 'interrupted');
  if (err instanceof ReadBackError) return state.report('error:conflict', `read-back: ${err.message}`);
  if (err instanceof GitTamperedError) {
    log.error({ paths: err.paths }, err.message);
    return state.report('refused', err.message);
  }
  const failure =
    err instanceof GitError
      ? { errorClass: err.errorClass, message: err.message }
      : classifyError(err, { now: input.deps.clock.now(), redact: input.redact });
  log.error({ errorClass: failure.errorClass, err: failure.message }, 'session failed');
  return state.report(`error:${failure.errorClass}`, failure.message);
}

/** The agent's git dir and Claude Code's scratch removed, the branch put back, the worktree removed. */
async function cleanUp(state: SessionState): Promise<void> {
  const { input, log } = state;
  const branch = input.work.branch;
  const quiet = { env: state.scrubbed, redact: input.redact };
  await state.sandboxes
    ?.close()
    .catch((err: unknown) =>
      log.warn({ err: (err as Error).message }, 'could not stop the session sandboxes'),
    );
  await state
    .closeEngine?.()
    .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not stop the model proxy'));
  await rm(state.agentGitDir, { recursive: true, force: true }).catch(() => undefined);
  if (state.scratch) await rm(state.scratch, { recursive: true, force: true }).catch(() => undefined);
  if (!state.delivered && state.startedAt !== undefined) {
    // Commits the agent made on a failed attempt must not become the next attempt's start point.
    const at = state.startedAt;
    await resetBranch(input.checkout, branch, at, quiet).catch((err: unknown) =>
      log.warn({ err: (err as Error).message }, `could not put ${branch} back at ${at}`),
    );
  }
  if (!(state.keep && input.config.session.keep_worktrees)) {
    await removeWorktree(input.checkout, state.worktree, quiet).catch((err: unknown) =>
      log.warn({ err: (err as Error).message }, `could not remove the worktree ${state.worktree}`),
    );
  }
}
