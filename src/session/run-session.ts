import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentResult } from '../agent/agent-loop.js';
import { renderTranscript } from '../agent/compaction/transcript.js';
import type { AgentEvent, AgentObserver, AgentTotals } from '../agent/events.js';
import { agentGitDirPath, type SandboxHost } from '../agent/exec/sandbox-host.js';
import { scrubEnv } from '../agent/tools/scrub-env.js';
import type { Config } from '../config/schema.js';
import { classifyError } from '../core/classify/classify-error.js';
import type { Deps } from '../core/deps.js';
import type { Redactor } from '../core/redact.js';
import { claudeScope } from '../engines/claude-code/claude-scope.js';
import { seededFallbackPrompt } from '../engines/fallback/fallback-seed.js';
import type { ModelRuntime } from '../engines/native/session-agent.js';
import {
  addTotals,
  createClaudeCodeEngine,
  createNativeEngine,
  fallsBackToNative,
  remainingBudget,
  type SessionEngine,
} from '../engines/session-engine.js';
import { totalTokens } from '../model/types.js';
import { ReadBackError } from '../sources/issues/publish.js';
import { GitTamperedError } from './git/git-state.js';
import {
  addWorktree,
  changedFiles,
  GitError,
  type GitOptions,
  removeWorktree,
  resetBranch,
  uncommitAgentWork,
} from './git/index.js';
import type { Ledger } from './ledger.js';
import { eventFields } from './ledger-fields.js';
import { type Outcome, outcomeOfStop, type Productivity, productivity } from './outcome.js';
import type { ResumeContext, SessionWork } from './session-work.js';
import { describeSetupFailure, renderVerifyFailure, runVerify, type VerifyResult } from './verify.js';
import { guardWorktree } from './worktree-guard.js';

/** Seed 000 feature 6: the tail of the transcript an interrupted attempt leaves for the next one. */
export const PARTIAL_CONTEXT_CHARS = 500;

export type SessionPhase = 'working' | 'verifying' | 'publishing';

export interface SessionInput {
  /** A GitHub issue (`issueWork`) or a task of a task file (`taskWork`). */
  work: SessionWork;
  attempt: number;
  /** From an interrupted attempt, and from the diagnosis of the last unknown failure. */
  resume?: ResumeContext;
  checkout: string;
  worktreesDir: string;
  /** What the system prompt calls the repository. */
  repo: string;
  config: Config;
  models: ModelRuntime;
  env: Readonly<Record<string, string | undefined>>;
  redact: Redactor;
  /** Where everything the agent runs runs: bubblewrap, or unconfined under `sandbox.mode: none`. */
  sandbox: SandboxHost;
  deps: Pick<Deps, 'clock' | 'random' | 'log'>;
  ledger?: Ledger;
  signal: AbortSignal;
  onPhase?: (phase: SessionPhase) => void;
  onEvent?: AgentObserver;
}

export interface SessionReport {
  issue: number;
  attempt: number;
  outcome: Outcome;
  reason: string;
  filesChanged: string[];
  verify?: VerifyResult;
  verifyRuns: number;
  commit?: string;
  pr?: { number: number; url: string; created: boolean };
  model: string;
  modelCalls: number;
  toolCalls: number;
  tokens: number;
  costUsd: number;
  durationMs: number;
  productivity: Productivity;
  /** The last ~500 characters of the transcript, for an interrupted attempt's successor. */
  partialContext: string;
  /** The diagnosis hint for the next attempt, after an unknown failure. */
  hint?: string;
  /** Claude Code's session, when the work ran on it. */
  sessionId?: string;
}

function partialContextOf(messages: Parameters<typeof renderTranscript>[0]): string {
  return renderTranscript(messages.slice(-6), { maxChars: 4_000 }).slice(-PARTIAL_CONTEXT_CHARS).trim();
}

/**
 * One claimed piece of work end to end: a worktree on the work's branch (`issueloop/issue-<n>` from a
 * freshly fetched base, or a task file's branch), the engine, then validation by the harness — a
 * non-empty diff, the verify command (with fix-up turns) — and delivery (commit, push, draft PR and a
 * read-back from GitHub; or a commit on the task file's branch). Failures end as an outcome with
 * evidence, never as an exception, except a broken harness (a bug) which the caller records as
 * `error:unknown`.
 */
export async function runSession(input: SessionInput): Promise<SessionReport> {
  const { config, deps, work, signal } = input;
  const log = deps.log.child({ issue: work.key, attempt: input.attempt });
  const started = deps.clock.now();
  const branch = work.branch;
  let worktree = join(input.worktreesDir, work.worktreeName);
  const agentGitDir = agentGitDirPath(input.worktreesDir, work.worktreeName);
  // The harness's git sees no credential either: a push gets its token from the remote's own env.
  const scrubbed = scrubEnv(input.env, config.redact_env);
  const git: GitOptions = { env: scrubbed, signal, redact: input.redact };
  let model = config.model.primary;
  // Appends never reject (see Ledger), so the session does not wait for them.
  const remember = (type: string, fields: Record<string, unknown>) => {
    void input.ledger?.append(type, { issue: work.key, attempt: input.attempt, ...fields });
  };
  const observer: AgentObserver = (event: AgentEvent) => {
    if (event.type === 'model_call') model = event.model;
    if (event.type !== 'tool_call' && event.type !== 'tool_result') remember(event.type, eventFields(event));
    input.onEvent?.(event);
  };

  let result: AgentResult | undefined;
  let messages: Parameters<typeof renderTranscript>[0] = [];
  let filesChanged: string[] = [];
  let verify: VerifyResult | undefined;
  let verifyRuns = 0;
  let keep = false;
  /** What an engine that was replaced (Claude Code, before the fallback) spent. */
  let spentBefore: AgentTotals | undefined;
  const spent = (): AgentTotals | undefined =>
    result && spentBefore ? addTotals(spentBefore, result.totals) : result?.totals;
  const report = (outcome: Outcome, reason: string, extra: Partial<SessionReport> = {}): SessionReport => {
    const totals = spent();
    const toolCalls = totals?.toolCalls ?? 0;
    const sessionId = engine?.sessionId?.();
    return {
      issue: work.key,
      attempt: input.attempt,
      outcome,
      reason: input.redact(reason),
      filesChanged,
      ...(verify ? { verify } : {}),
      verifyRuns,
      model,
      modelCalls: totals?.modelCalls ?? 0,
      toolCalls,
      tokens: totals ? totalTokens(totals.usage) : 0,
      costUsd: totals?.costUsd ?? 0,
      durationMs: deps.clock.now() - started,
      productivity: productivity(filesChanged.length, extra.pr?.created ? 1 : 0, toolCalls),
      partialContext: input.redact(partialContextOf(messages)),
      ...(sessionId ? { sessionId } : {}),
      ...extra,
    };
  };

  /** The engine working now; a fallback replaces it. */
  let engine: SessionEngine | undefined;
  const thread = work.thread?.from;
  /** Where the branch started once the worktree has it; an attempt that delivers nothing leaves it there. */
  let startedAt: string | undefined;
  let delivered = false;
  /** Claude Code's throwaway configuration, removed with the worktree. */
  let scratch: string | undefined;
  try {
    input.onPhase?.('working');
    const base = await work.startPoint(git);
    await addWorktree({ checkout: input.checkout, path: worktree, branch, startPoint: base }, git);
    startedAt = base;
    const guarded = await guardWorktree({
      path: worktree,
      branch,
      agentGitDir,
      git,
      sandbox: input.sandbox,
      env: input.env,
      redactEnv: config.redact_env,
      log,
      remember,
    });
    worktree = guarded.worktree;
    const { sandboxes, git: wtGit } = guarded;
    if (config.session.setup) {
      const setup = await runVerify(config.session.setup, {
        cwd: worktree,
        env: scrubbed,
        timeoutMs: config.session.setup_timeout,
        signal,
        clock: deps.clock,
        sandbox: sandboxes.setup,
      });
      remember('setup', { passed: setup.passed, exitCode: setup.exitCode, durationMs: setup.durationMs });
      if (signal.aborted) return report('interrupted', 'interrupted during setup');
      if (!setup.passed) {
        keep = true;
        return report('error:invalid_request', describeSetupFailure(setup));
      }
    }
    const engineName = work.engine ?? config.engine;
    /** The native engine; after a fallback, with only what the session has left of its budgets. */
    const nativeEngine = (spentSoFar?: AgentTotals) =>
      createNativeEngine({
        worktree,
        repo: input.repo,
        branch,
        rawIssueBody: work.rawBody,
        task: work.task,
        subject: work.subject,
        boot: work.boot,
        initial: !spentSoFar && thread?.engine === 'native' ? thread.messages : undefined,
        config: spentSoFar ? remainingBudget(config, spentSoFar, deps.clock.now() - started) : config,
        models: input.models,
        env: input.env,
        redact: input.redact,
        clock: deps.clock,
        log,
        observer,
        signal,
        sandbox: sandboxes.commands,
        currentModel: () => model,
      });
    const claudeHome =
      engineName === 'claude-code' ? await claudeScope(config.claude_code.bin, input.env) : undefined;
    scratch = claudeHome?.scratch;
    engine = claudeHome
      ? createClaudeCodeEngine({
          config,
          worktree,
          env: input.env,
          log,
          signal,
          now: () => deps.clock.now(),
          from: thread?.engine === 'claude-code' ? thread : undefined,
          boot: work.boot,
          sandbox: sandboxes.claude(claudeHome),
        })
      : await nativeEngine();
    const first = work.firstMessage(input.resume);
    const runEngine = async (content: string): Promise<AgentResult> => {
      const current = engine as SessionEngine;
      const done = await current.run(content);
      result = done;
      messages = current.messages();
      model = current.model();
      return done;
    };
    result = await runEngine(first);
    if (fallsBackToNative(config, engine, result, deps.clock.now() - started)) {
      // Seed 003: the native engine takes over in the same worktree, seeded with Claude Code's session.
      const failureClass = result.error?.errorClass ?? 'unknown';
      const failedSession = engine.sessionId?.();
      log.warn(
        { errorClass: failureClass },
        `failover: claude-code stopped (${failureClass}); the native engine continues with its session context`,
      );
      remember('engine_fallback', { from: 'claude-code', to: 'native', errorClass: failureClass });
      spentBefore = result.totals;
      engine = await nativeEngine(spentBefore);
      const prompt = await seededFallbackPrompt({
        chainStartedOn: 'claude-code',
        failedEngine: 'claude-code',
        next: 'native',
        failureClass,
        task: first,
        sessionId: failedSession,
        cwd: worktree,
        claudeHome: join(input.env.HOME ?? homedir(), '.claude'),
      });
      result = await runEngine(prompt);
    }
    const hint = () => engine?.hint();

    for (;;) {
      const stopped = outcomeOfStop(result.stop, result.error);
      if (stopped) {
        keep = true;
        const h = hint();
        return report(stopped, result.reason, h ? { hint: h } : {});
      }
      // Nothing the agent could have changed in git is trusted from here on.
      await guarded.reclaim();
      if (await uncommitAgentWork(worktree, base, wtGit))
        log.info('the agent committed itself; its commits are judged as changes');
      filesChanged = (await changedFiles(worktree, wtGit)).map((file) => file.path);
      if (filesChanged.length === 0)
        return report('no_changes', 'the agent finished without changing any file');
      if (!config.verify.command) break;
      input.onPhase?.('verifying');
      verifyRuns += 1;
      verify = await runVerify(config.verify.command, {
        cwd: worktree,
        env: scrubbed,
        timeoutMs: config.verify.timeout,
        signal,
        clock: deps.clock,
        sandbox: sandboxes.commands,
      });
      remember('verify', {
        passed: verify.passed,
        exitCode: verify.exitCode,
        durationMs: verify.durationMs,
      });
      if (signal.aborted) return report('interrupted', 'interrupted while verifying');
      if (verify.passed) break;
      const left = config.verify.retries - (verifyRuns - 1);
      if (left <= 0) {
        keep = true;
        return report('verify_failed', `\`${verify.command}\` failed (exit ${verify.exitCode ?? 'none'})`);
      }
      input.onPhase?.('working');
      result = await runEngine(renderVerifyFailure(verify, left - 1));
    }

    input.onPhase?.('publishing');
    // The verify command ran in the sandbox too, and a fix-up turn may have followed it.
    await guarded.reclaim();
    const secret = await guarded.secretsInDiff(base);
    if (secret) {
      keep = true;
      return report('refused', secret);
    }
    const { reason, ...handedOver } = await work.deliver(
      {
        worktree,
        summary: result.finalText,
        filesChanged,
        ...(verify ? { verify } : {}),
        costUsd: spent()?.costUsd ?? 0,
        model,
        modelCalls: spent()?.modelCalls ?? 0,
        toolCalls: spent()?.toolCalls ?? 0,
      },
      wtGit,
    );
    delivered = true;
    if (work.thread)
      await carryThread(work.thread, engine, log, (summaryTurn) => {
        result = summaryTurn;
      });
    return report('resolved', reason, handedOver);
  } catch (err) {
    keep = true;
    if (signal.aborted) return report('interrupted', 'interrupted');
    if (err instanceof ReadBackError) return report('error:conflict', `read-back: ${err.message}`);
    if (err instanceof GitTamperedError) {
      log.error({ paths: err.paths }, err.message);
      return report('refused', err.message);
    }
    const failure =
      err instanceof GitError
        ? { errorClass: err.errorClass, message: err.message }
        : classifyError(err, { now: deps.clock.now(), redact: input.redact });
    log.error({ errorClass: failure.errorClass, err: failure.message }, 'session failed');
    return report(`error:${failure.errorClass}`, failure.message);
  } finally {
    const quiet = { env: scrubbed, redact: input.redact };
    await rm(agentGitDir, { recursive: true, force: true }).catch(() => undefined);
    if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    if (!delivered && startedAt !== undefined) {
      // Commits the agent made on a failed attempt must not become the next attempt's start point.
      const at = startedAt;
      await resetBranch(input.checkout, branch, at, quiet).catch((err: unknown) =>
        log.warn({ err: (err as Error).message }, `could not put ${branch} back at ${at}`),
      );
    }
    if (!(keep && config.session.keep_worktrees)) {
      await removeWorktree(input.checkout, worktree, quiet).catch((err: unknown) =>
        log.warn({ err: (err as Error).message }, `could not remove the worktree ${worktree}`),
      );
    }
  }
}

/**
 * Hands the conversation to the group's next task. The work is already delivered, so nothing here
 * may fail the session: a carry that throws breaks the thread and the next task starts fresh.
 */
async function carryThread(
  thread: NonNullable<SessionWork['thread']>,
  engine: SessionEngine,
  log: SessionInput['deps']['log'],
  onSummaryTurn: (result: AgentResult) => void,
): Promise<void> {
  try {
    const next = await engine.carry();
    if (next.result) onSummaryTurn(next.result);
    thread.keep(next.carry);
  } catch (err) {
    log.warn(
      { err: (err as Error).message },
      'could not carry the conversation to the next task; it starts fresh',
    );
  }
}
