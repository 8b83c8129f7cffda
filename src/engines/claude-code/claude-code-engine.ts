import type { CommandSandbox } from '../../agent/exec/sandbox.js';
import { scrubEnv } from '../../agent/tools/scrub-env.js';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import type { MessageParam } from '../../model/types.js';
import { addTotals, type SessionEngine, type ThreadCarry, ZERO_TOTALS } from '../engine.js';
import { runClaudeCode } from './claude-code-run.js';
import { createClaudeCodeConversation } from './conversation.js';

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

/**
 * Claude Code as a session engine: each `run` is one `claude -p` call resuming the session (a verify
 * fix-up continues the same conversation), compacted by seed 000's rule past the threshold. Claude
 * Code runs with the scrubbed environment plus the model credential it logs in with; never a GitHub token.
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
  // Headless Claude Code logs in with a model credential from its environment (an API key, a
  // subscription's OAuth token, or a gateway's auth token): that one reaches it, never a GitHub token.
  const env = { ...scrubEnv(options.env, config.redact_env), ...modelCredentials(options.env) };
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
