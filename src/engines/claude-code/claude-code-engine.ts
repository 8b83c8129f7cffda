import type { AgentObserver } from '../../agent/events.js';
import { scrubEnv } from '../../agent/tools/scrub-env.js';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
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

/** The environment variables Claude Code logs in with, where set. */
export const MODEL_CREDENTIALS = [
  'ANTHROPIC_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'ANTHROPIC_AUTH_TOKEN',
] as const;

function modelCredentials(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of MODEL_CREDENTIALS) {
    const value = env[name];
    if (value) found[name] = value;
  }
  return found;
}

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
 * Claude Code as a session engine: each `run` is one `claude -p` call resuming the session (a verify
 * fix-up continues the same conversation), compacted by seed 000's rule past the threshold, within
 * what is left of the session's model calls, money and time. Claude Code runs with the scrubbed
 * environment plus the model credential it logs in with; never a GitHub token.
 */
export function createClaudeCodeEngine(options: ClaudeCodeEngineOptions): SessionEngine {
  const { config } = options;
  const model = config.claude_code.model ?? config.model.primary;
  // Headless Claude Code logs in with a model credential from its environment (an API key, a
  // subscription's OAuth token, or a gateway's auth token): that one reaches it, never a GitHub token.
  const env = { ...scrubEnv(options.env, config.redact_env), ...modelCredentials(options.env) };
  const started = options.now();
  let totals = ZERO_TOTALS;
  const transcript: MessageParam[] = [];
  const live = createLiveEvents(options.observer, `claude-code:${model}`);
  const timeLeft = () =>
    callTimeoutMs(config.session.max_duration - (options.now() - started), options.reserveMs ?? 0);
  const call = async ({ prompt, session, previousCostUsd }: ConversationCall) => {
    const result = await runClaudeCode({
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
      return {
        ...endOf(result),
        finalText: result.text,
        totals: { ...totals, durationMs: options.now() - started },
      };
    },
  };
}
