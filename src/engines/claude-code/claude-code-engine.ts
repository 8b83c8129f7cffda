import type { AgentObserver } from '../../agent/events.js';
import { holdsCredentials, scrubEnv } from '../../agent/tools/scrub-env.js';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import { telemetry } from '../../core/telemetry.js';
import type { MessageParam } from '../../model/types.js';
import type { CommandSandbox } from '../../sandbox/sandbox.js';
import {
  addTotals,
  type EngineResult,
  type SessionEngine,
  type ThreadCarry,
  ZERO_TOTALS,
} from '../engine.js';
import { type ClaudeCodeResult, runClaudeCode } from './claude-code-run.js';
import { type ConversationCall, createClaudeCodeConversation } from './conversation.js';
import { createLiveEvents } from './live-events.js';
import {
  MODEL_CREDENTIALS,
  MODEL_ROUTING,
  type ModelAccess,
  type ModelSpend,
  QUIET_CLI,
} from './model-access.js';

export interface ClaudeCodeEngineOptions {
  config: Config;
  worktree: string;
  env: Readonly<Record<string, string | undefined>>;
  log: Log;
  signal: AbortSignal;
  now: () => number;
  /** A task group's session, resumed by this task. */
  from?: ThreadCarry | undefined;
  /** A boot file the caller read (a task file's directive): appended to Claude Code's system prompt. */
  boot?: { path: string; text: string } | undefined;
  /** Where `claude` runs. */
  sandbox: CommandSandbox;
  /**
   * The session's model proxy, which holds the credential: `claude` gets a placeholder and the
   * proxy's address, and each call's tokens and cost are what the API returned through it. Without
   * one (the harness holds no credential) `claude` has no login at all.
   */
  model?: ModelAccess | undefined;
  /** CLAUDE_CONFIG_DIR for an unconfined `claude`: the scrubbed copy of its configuration. */
  configDir?: string | undefined;
  /** Told of each API response and tool call as they happen, and of the cost when a call ends. */
  observer?: AgentObserver | undefined;
  /**
   * Time kept back from every call for the engine that takes over should it fail: the CLI retries a
   * refusal for minutes on its own, and a call given all the session's time leaves none to fall back.
   */
  reserveMs?: number;
}

/**
 * How long one call may run: what is left of the session, less the reserve kept for the fallback when
 * the session is long enough for both (a short session gives the call all of it).
 */
export function callTimeoutMs(leftMs: number, reserveMs: number): number {
  return Math.max(leftMs - reserveMs >= reserveMs ? leftMs - reserveMs : leftMs, 1_000);
}

/** A call's end as the session sees it: a limit the CLI was given is that limit's stop. */
function endOf(result: ClaudeCodeResult): Pick<EngineResult, 'stop' | 'reason' | 'error'> {
  if (result.ok) return { stop: 'end_turn', reason: 'claude-code finished' };
  if (result.limit === 'model_calls')
    return { stop: 'model_call_limit', reason: `claude-code: ${result.text}` };
  if (result.limit === 'cost') return { stop: 'cost_limit', reason: `claude-code: ${result.text}` };
  if (result.error.errorClass === 'aborted') return { stop: 'aborted', reason: 'interrupted' };
  return { stop: 'model_error', reason: `claude-code: ${result.text}`, error: result.error };
}

/**
 * `claude`'s environment: the scrubbed one, without anything that routes its API calls or logs it in
 * (checked again by name, whatever the scrubber's patterns), with its non-essential traffic off, plus
 * the model proxy's variables.
 */
export function claudeEnv(options: ClaudeCodeEngineOptions): Record<string, string> {
  const env = scrubEnv(options.env, [...options.config.redact_env, ...MODEL_CREDENTIALS, ...MODEL_ROUTING]);
  return {
    ...env,
    ...QUIET_CLI,
    ...(options.configDir ? { CLAUDE_CONFIG_DIR: options.configDir } : {}),
    ...options.model?.env(options.sandbox),
    ...claudeTelemetryEnv(options.config),
  };
}

/**
 * With telemetry on, Claude Code's own OpenTelemetry joins the run's trace: its switch, the
 * session span's `TRACEPARENT`, and the endpoint from the config when no variable names one (the
 * runner's other `OTEL_*` variables pass through the scrubbed environment; the headers never do,
 * being secrets). Its export leaves through the sandbox's egress proxy like any other traffic.
 */
export function claudeTelemetryEnv(config: Pick<Config, 'telemetry'>): Record<string, string> {
  const t = telemetry();
  if (!t.enabled) return {};
  const traceparent = t.traceparent();
  return {
    CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    // An endpoint with a password in it is a secret: Claude Code never gets it.
    ...(config.telemetry.otlp_endpoint && !holdsCredentials(config.telemetry.otlp_endpoint)
      ? { OTEL_EXPORTER_OTLP_ENDPOINT: config.telemetry.otlp_endpoint }
      : {}),
    ...(traceparent ? { TRACEPARENT: traceparent } : {}),
  };
}

/**
 * What a call used, as the API told the model proxy (priced by model/prices.ts with the config's
 * overrides): what the proxy counted during the call. The CLI's own figures stay only without a proxy.
 */
async function measured(
  result: ClaudeCodeResult,
  model: ModelAccess | undefined,
  before: ModelSpend | undefined,
): Promise<ClaudeCodeResult> {
  if (!model || !before) return result;
  await model.idle();
  const after = model.spent();
  const usage = {
    input: after.usage.input - before.usage.input,
    cacheWrite: after.usage.cacheWrite - before.usage.cacheWrite,
    cacheRead: after.usage.cacheRead - before.usage.cacheRead,
    output: after.usage.output - before.usage.output,
    ...(after.usage.cacheWrite1h
      ? { cacheWrite1h: after.usage.cacheWrite1h - (before.usage.cacheWrite1h ?? 0) }
      : {}),
  };
  const spent = { ...result, usage, costUsd: after.costUsd - before.costUsd };
  // The proxy stopped the call at the session's budget: the CLI saw an API error, the session a limit.
  if (!spent.ok && after.overBudget > before.overBudget) return { ...spent, limit: 'cost' };
  return spent;
}

/**
 * Claude Code as a session engine: each `run` is one `claude -p` call resuming the session (a verify
 * fix-up continues the same conversation), compacted by seed 000's rule past the threshold, within
 * what is left of the session's model calls, money and time. Claude Code runs with the scrubbed
 * environment and a placeholder credential: the session's model proxy holds the real one. Never a
 * GitHub token, never a model credential.
 */
export function createClaudeCodeEngine(options: ClaudeCodeEngineOptions): SessionEngine {
  const { config } = options;
  const model = config.claude_code.model ?? config.model.primary;
  const env = claudeEnv(options);
  const started = options.now();
  let totals = ZERO_TOTALS;
  const transcript: MessageParam[] = [];
  const live = createLiveEvents(options.observer, `claude-code:${model}`);
  const timeLeft = () =>
    callTimeoutMs(config.session.max_duration - (options.now() - started), options.reserveMs ?? 0);
  const call = async ({ prompt, session, previousCostUsd }: ConversationCall) => {
    const before = options.model?.spent();
    const printed = await runClaudeCode({
      bin: config.claude_code.bin,
      cwd: options.worktree,
      model,
      prompt,
      env,
      permissionMode: config.claude_code.permission_mode,
      allowedTools: config.claude_code.allowed_tools,
      session,
      previousCostUsd,
      maxTurns: Math.max(config.session.max_model_calls - totals.modelCalls, 1),
      // What this call may spend: the CLI counts this process's spending, not the session's total.
      maxBudgetUsd: Math.max(config.session.max_usd - totals.costUsd, 0),
      timeoutMs: timeLeft(),
      signal: options.signal,
      sandbox: options.sandbox,
      onEvent: live.event,
      ...(options.boot
        ? { appendSystemPrompt: `Project context (from ${options.boot.path}):\n${options.boot.text}` }
        : {}),
    });
    const result = await measured(printed, options.model, before);
    live.callEnded(result.costUsd);
    totals = addTotals(totals, {
      ...ZERO_TOTALS,
      modelCalls: result.modelCalls,
      toolCalls: result.toolCalls,
      toolErrors: result.toolErrors,
      usage: result.usage,
      costUsd: result.costUsd,
    });
    return result;
  };
  const conversation = createClaudeCodeConversation({
    run: call,
    threshold: config.model.compaction_threshold,
    contextWindow: config.model.context_window,
    log: options.log,
    ...(options.from?.sessionId
      ? {
          start: {
            sessionId: options.from.sessionId,
            tokens: options.from.tokens,
            costUsd: options.from.sessionCostUsd,
          },
        }
      : {}),
  });

  return {
    name: 'claude-code',
    model: () => `claude-code:${model}`,
    hint: () => undefined,
    messages: () => transcript,
    sessionId: () => conversation.sessionId,
    async carry() {
      const { sessionId, tokens, summary, costUsd } = conversation.state();
      return {
        carry: {
          engine: 'claude-code',
          tokens,
          ...(sessionId ? { sessionId, sessionCostUsd: costUsd } : {}),
          ...(summary ? { summary } : {}),
        },
      };
    },
    async run(content) {
      transcript.push({ role: 'user', content });
      const turn = await conversation.send(content);
      if (turn.compacted) totals = { ...totals, compactions: totals.compactions + 1 };
      const { result } = turn;
      transcript.push({ role: 'assistant', content: [{ type: 'text', text: result.text || '(no answer)' }] });
      // Plan mode: the plan the model gave ExitPlanMode, not the sentence it ended with after it.
      const plan = config.claude_code.permission_mode === 'plan' ? result.plan : undefined;
      return {
        ...endOf(result),
        finalText: plan ?? result.text,
        totals: { ...totals, durationMs: options.now() - started },
      };
    },
  };
}
