import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { type CommandSandbox, UNSANDBOXED } from '../../agent/exec/sandbox.js';
import { spawnSandboxed } from '../../agent/exec/spawn-sandboxed.js';
import { type ClassifiedError, classifyError } from '../../core/classify/classify-error.js';
import { stopGroup } from '../../core/process-group.js';

/**
 * One `claude -p --output-format json` call (seed 000): the prompt on stdin, in the worktree, with the
 * scrubbed environment; the JSON result read for `session_id`, `usage`, `is_error` and
 * `modelUsage.<model>.contextWindow`. Failures are classified from the result text, else from the
 * tail of the output, by [core]'s text table (the seed's log-tail patterns).
 */
export interface ClaudeCodeUsage {
  input: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
}

interface ClaudeCodeCall {
  sessionId?: string;
  /** The final answer on success; the error text on failure. */
  text: string;
  usage: ClaudeCodeUsage;
  /** From `modelUsage.<model>.contextWindow`, when Claude Code reports it. */
  contextWindow?: number;
  costUsd: number;
  exitCode: number | null;
}

/** A call that succeeded, or failed with its failure classified by core, as every adapter's are. */
export type ClaudeCodeResult = ClaudeCodeCall & ({ ok: true } | { ok: false; error: ClassifiedError });

export interface ClaudeCodeRunOptions {
  /** The `claude` executable: a name looked up on PATH, or a path. */
  bin: string;
  cwd: string;
  model: string;
  prompt: string;
  /** Continue this session (`--resume`). */
  resume?: string;
  /** Project context for the system prompt (`--append-system-prompt`): a task file's boot file. */
  appendSystemPrompt?: string;
  /** `--permission-mode`, and `--allowedTools` (comma-separated): headless Claude Code cannot ask. */
  permissionMode?: string;
  allowedTools?: readonly string[];
  /** Already scrubbed of credentials other than what Claude Code itself needs. */
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Where `claude` runs: the session's sandbox (with the network, its home's ~/.claude only). */
  sandbox?: CommandSandbox;
}

const TAIL_CHARS = 4_000;
const NO_USAGE: ClaudeCodeUsage = { input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };

interface ResultJson {
  type?: unknown;
  is_error?: unknown;
  result?: unknown;
  session_id?: unknown;
  total_cost_usd?: unknown;
  usage?: Record<string, unknown>;
  modelUsage?: Record<string, { contextWindow?: unknown }>;
  /** The API's HTTP status behind a failed call (2.1.x). */
  api_error_status?: unknown;
  /** The API's error type behind it, e.g. `rate_limit_error`. */
  api_error_type?: unknown;
}

/**
 * A failed call's structured facts, classified as the model adapter classifies the API's own errors:
 * the HTTP status and error type the result carries, before any text.
 */
function structuredFailure(json: ResultJson | undefined, message: string): unknown {
  const status = json?.api_error_status;
  if (typeof status !== 'number') return undefined;
  const type = typeof json?.api_error_type === 'string' ? json.api_error_type : undefined;
  return Object.assign(new Error(message), {
    status,
    ...(type ? { error: { type: 'error', error: { type, message } } } : {}),
  });
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** The last line of stdout that parses as Claude Code's result object. */
function resultOf(stdout: string): { json: ResultJson; line: string } | undefined {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const json = JSON.parse(trimmed) as ResultJson;
      if (typeof json.is_error === 'boolean' || json.type === 'result') return { json, line: trimmed };
    } catch {
      // Not the result line.
    }
  }
  return undefined;
}

function contextWindowOf(json: ResultJson, model: string): number | undefined {
  const usage = json.modelUsage ?? {};
  const exact = usage[model]?.contextWindow;
  if (typeof exact === 'number') return exact;
  // Claude Code names the model it resolved an alias to (`sonnet` → a dated id).
  const any = Object.values(usage).find((entry) => typeof entry?.contextWindow === 'number');
  return any ? (any.contextWindow as number) : undefined;
}

export async function runClaudeCode(options: ClaudeCodeRunOptions): Promise<ClaudeCodeResult> {
  const args = ['-p', '--output-format', 'json', '--model', options.model];
  if (options.permissionMode) args.push('--permission-mode', options.permissionMode);
  if (options.allowedTools?.length) args.push('--allowedTools', options.allowedTools.join(','));
  if (options.resume) args.push('--resume', options.resume);
  if (options.appendSystemPrompt) args.push('--append-system-prompt', options.appendSystemPrompt);
  const child = spawnSandboxed(options.sandbox ?? UNSANDBOXED, [options.bin, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdin: 'pipe',
  }) as ChildProcessWithoutNullStreams;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-TAIL_CHARS);
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.prompt);

  let stopped: 'timeout' | 'aborted' | undefined;
  let killer: NodeJS.Timeout | undefined;
  const stop = (why: 'timeout' | 'aborted') => {
    if (stopped || child.pid === undefined) return;
    stopped = why;
    killer = stopGroup(child.pid);
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('aborted');
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const exitCode = await new Promise<number | null>((resolve) => {
    child.on('error', (err) => {
      stderr += `\n${err.message}`;
      resolve(null);
    });
    child.on('close', (code) => resolve(code));
  });
  clearTimeout(timer);
  if (killer) clearTimeout(killer);
  options.signal?.removeEventListener('abort', onAbort);

  const found = resultOf(stdout);
  const json = found?.json;
  const usage: ClaudeCodeUsage = json?.usage
    ? {
        input: num(json.usage.input_tokens),
        cacheWrite: num(json.usage.cache_creation_input_tokens),
        cacheRead: num(json.usage.cache_read_input_tokens),
        output: num(json.usage.output_tokens),
      }
    : NO_USAGE;
  const base = {
    ...(typeof json?.session_id === 'string' ? { sessionId: json.session_id } : {}),
    usage,
    costUsd: num(json?.total_cost_usd),
    exitCode,
  };
  const contextWindow = json ? contextWindowOf(json, options.model) : undefined;
  const withWindow = contextWindow !== undefined ? { ...base, contextWindow } : base;
  const text = typeof json?.result === 'string' ? json.result : '';

  if (stopped) {
    const text = `claude ${stopped === 'timeout' ? 'timed out' : 'was interrupted'}`;
    const why = new DOMException(text, stopped === 'timeout' ? 'TimeoutError' : 'AbortError');
    return { ...withWindow, ok: false, text, error: classifyError(why) };
  }
  if (json && json.is_error === false && exitCode === 0) return { ...withWindow, ok: true, text };
  // A failure, read as a log tail newest line first: the result line when there is one (it says
  // is_error, and counts first), then what the process printed.
  const evidence = found ? `${stderr}\n${found.line}` : `${stdout.slice(-TAIL_CHARS)}\n${stderr}`;
  const message = text || stderr.trim().split('\n').at(-1) || `claude exited with ${exitCode}`;
  const structured = structuredFailure(json, message);
  return { ...withWindow, ok: false, text: message, error: classifyError(structured ?? evidence) };
}
