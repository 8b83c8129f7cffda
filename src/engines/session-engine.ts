import type { AgentResult } from '../agent/agent-loop.js';
import { compactionLogLine, compactionPercent, shouldCompact } from '../agent/compaction/should-compact.js';
import type { AgentObserver, AgentTotals } from '../agent/events.js';
import type { CommandSandbox } from '../agent/exec/sandbox.js';
import { scrubEnv } from '../agent/tools/scrub-env.js';
import type { Config } from '../config/schema.js';
import type { ErrorClass } from '../core/classify/policy.js';
import type { Log } from '../core/logger.js';
import { addUsage, type MessageParam, ZERO_USAGE } from '../model/types.js';
import type { ThreadCarry } from '../session/session-work.js';
import { runClaudeCode } from './claude-code/claude-code-run.js';
import { COMPACTION_REQUEST, createClaudeCodeConversation } from './claude-code/conversation.js';
import type { EngineName } from './fallback/fallback-seed.js';
import { buildSessionAgent } from './native/session-agent.js';

/**
 * Who works a session: the native agent loop (the Anthropic API) or Claude Code's CLI. The session
 * code (worktree, verify and its fix-up turns, commit, publish, outcomes) is the same for both.
 */
export interface SessionEngine {
  readonly name: EngineName;
  run(content: string): Promise<AgentResult>;
  /** The conversation so far, for an interrupted attempt's partial context. */
  messages(): readonly MessageParam[];
  /** The model in use, for the report. */
  model(): string;
  /** A diagnosis hint for the next attempt, when the engine has one. */
  hint(): string | undefined;
  /** Claude Code's session id, for the seeded fallback and the task's state. */
  sessionId?(): string | undefined;
  /**
   * Where the conversation stands after a completed task, for the next task of its group. Past the
   * compaction threshold the engine is asked for a summary first (seed 000 feature 5); that turn's
   * result comes back too, so its cost is counted.
   */
  carry(): Promise<{ carry: ThreadCarry; result?: AgentResult }>;
}

/** Claude Code failures the native engine is a remedy for: its own limits, login or a stuck call. */
const FALLBACK_CLASSES: ReadonlySet<ErrorClass> = new Set([
  'rate_limit',
  'overloaded',
  'billing',
  'auth',
  'timeout',
]);

/** A fallback engine needs at least this much of the session's time left to be worth starting. */
export const MIN_FALLBACK_MS = 60_000;

/** Whether the native engine takes over: a Claude Code failure it remedies, with time and money left. */
export function fallsBackToNative(
  config: Config,
  engine: SessionEngine,
  result: AgentResult,
  elapsedMs: number,
): boolean {
  return (
    engine.name === 'claude-code' &&
    config.claude_code.fallback === 'native' &&
    result.stop === 'model_error' &&
    result.error !== undefined &&
    FALLBACK_CLASSES.has(result.error.errorClass) &&
    config.session.max_duration - elapsedMs >= MIN_FALLBACK_MS &&
    config.session.max_usd - result.totals.costUsd > 0
  );
}

/** The session's budgets minus what an earlier engine spent: a fallback continues, it does not start over. */
export function remainingBudget(config: Config, spent: AgentTotals, elapsedMs: number): Config {
  return {
    ...config,
    session: {
      ...config.session,
      max_duration: Math.max(config.session.max_duration - elapsedMs, 1_000),
      max_usd: config.session.max_usd - spent.costUsd,
      max_model_calls: Math.max(config.session.max_model_calls - spent.modelCalls, 1),
    },
  };
}

/**
 * issueloop's own agent loop as a session engine. A task group's conversation continues from the
 * previous task's messages (`initial`); past the threshold it is summarised for the next task.
 */
export async function createNativeEngine(
  options: Parameters<typeof buildSessionAgent>[0] & { currentModel: () => string },
): Promise<SessionEngine> {
  let contextTokens = 0;
  const observer: AgentObserver = (event) => {
    if (event.type === 'model_call') contextTokens = event.contextTokens + event.usage.output;
    options.observer(event);
  };
  const session = await buildSessionAgent({ ...options, observer });
  for (const warning of session.warnings) options.log.warn({ warning }, warning);
  const { agent } = session;
  return {
    name: 'native',
    run: (content) => agent.run(content),
    messages: () => agent.messages(),
    model: options.currentModel,
    hint: () => session.model.lastDiagnosis()?.hint || undefined,
    async carry() {
      const window = session.model.contextWindow;
      if (!shouldCompact(contextTokens, window, options.config.model.compaction_threshold)) {
        return { carry: { engine: 'native', tokens: contextTokens, messages: agent.messages() } };
      }
      const result = await agent.run(COMPACTION_REQUEST);
      const summary = result.stop === 'end_turn' ? result.finalText.trim() : '';
      const percent = compactionPercent(contextTokens, window);
      if (summary) options.log.info({ percent }, compactionLogLine(contextTokens, window));
      else
        options.log.warn(
          { percent, stop: result.stop },
          `compaction: context at ${percent}%, the summary failed; the next task starts fresh without one`,
        );
      return { carry: { engine: 'native', tokens: 0, ...(summary ? { summary } : {}) }, result };
    },
  };
}

const ZERO_TOTALS: AgentTotals = {
  modelCalls: 0,
  toolCalls: 0,
  toolErrors: 0,
  compactions: 0,
  usage: ZERO_USAGE,
  costUsd: 0,
  durationMs: 0,
};

export function addTotals(a: AgentTotals, b: AgentTotals): AgentTotals {
  return {
    modelCalls: a.modelCalls + b.modelCalls,
    toolCalls: a.toolCalls + b.toolCalls,
    toolErrors: a.toolErrors + b.toolErrors,
    compactions: a.compactions + b.compactions,
    usage: addUsage(a.usage, b.usage),
    costUsd: a.costUsd + b.costUsd,
    durationMs: a.durationMs + b.durationMs,
  };
}

/**
 * Claude Code as a session engine: each `run` is one `claude -p` call resuming the session (a verify
 * fix-up continues the same conversation), compacted by seed 000's rule past the threshold. Claude
 * Code runs with the scrubbed environment, so it uses its own login, never issueloop's API key.
 */
export function createClaudeCodeEngine(options: {
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
}): SessionEngine {
  const { config } = options;
  const model = config.claude_code.model ?? config.model.primary;
  const env = scrubEnv(options.env, config.redact_env);
  const started = options.now();
  let totals = ZERO_TOTALS;
  const transcript: MessageParam[] = [];
  const conversation = createClaudeCodeConversation({
    run: async ({ prompt, resume }) => {
      const result = await runClaudeCode({
        bin: config.claude_code.bin,
        cwd: options.worktree,
        model,
        prompt,
        env,
        permissionMode: config.claude_code.permission_mode,
        allowedTools: config.claude_code.allowed_tools,
        timeoutMs: Math.max(config.session.max_duration - (options.now() - started), 1_000),
        signal: options.signal,
        sandbox: options.sandbox,
        ...(resume ? { resume } : {}),
        ...(options.boot
          ? { appendSystemPrompt: `Project context (from ${options.boot.path}):\n${options.boot.text}` }
          : {}),
      });
      totals = addTotals(totals, {
        ...ZERO_TOTALS,
        modelCalls: 1,
        usage: result.usage,
        costUsd: result.costUsd,
        durationMs: 0,
      });
      return result;
    },
    threshold: config.model.compaction_threshold,
    contextWindow: config.model.context_window,
    log: options.log,
    ...(options.from?.sessionId
      ? { start: { sessionId: options.from.sessionId, tokens: options.from.tokens } }
      : {}),
  });

  return {
    name: 'claude-code',
    model: () => `claude-code:${model}`,
    hint: () => undefined,
    messages: () => transcript,
    sessionId: () => conversation.sessionId,
    async carry() {
      const { sessionId, tokens, summary } = conversation.state();
      return {
        carry: {
          engine: 'claude-code',
          tokens,
          ...(sessionId ? { sessionId } : {}),
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
      const done = {
        finalText: result.text,
        totals: {
          ...totals,
          durationMs: options.now() - started,
        },
      };
      if (result.ok) return { stop: 'end_turn', reason: 'claude-code finished', ...done };
      if (result.error.errorClass === 'aborted') return { stop: 'aborted', reason: 'interrupted', ...done };
      return {
        stop: 'model_error',
        reason: `claude-code: ${result.text}`,
        error: result.error,
        ...done,
      };
    },
  };
}
