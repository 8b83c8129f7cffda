import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { type ClassifiedError, classifyError } from '../../core/classify/classify-error.js';
import { stopGroup } from '../../core/process-group.js';
import { type CommandSandbox, UNSANDBOXED } from '../../sandbox/sandbox.js';
import { spawnSandboxed } from '../../sandbox/spawn-sandboxed.js';
import { isSessionId } from './session-history.js';
import {
  type ClaudeCodeUsage,
  contextOf,
  createStreamReader,
  NO_USAGE,
  num,
  type ResultJson,
  type StreamEvent,
  usageOf,
} from './stream-events.js';

export type { ClaudeCodeUsage, StreamEvent } from './stream-events.js';

/**
 * One `claude -p --output-format stream-json --verbose` call (seed 000): the prompt on stdin, in the
 * worktree, with the scrubbed environment. The stream tells each API response as it comes (the
 * model calls, tool calls and the newest request's size); its last line is the result object, read
 * for `session_id`, `usage`, `total_cost_usd`, `is_error`, `api_error_status` and
 * `modelUsage.<model>.contextWindow`. Failures are classified from the API status and type the
 * result carries, else from its text and the output's tail, by [core]'s table.
 */
interface ClaudeCodeCall {
  sessionId?: string;
  /** The final answer on success; the error text on failure. */
  text: string;
  /** Every request of this call, summed (each re-reads the context, so this is not its size). */
  usage: ClaudeCodeUsage;
  /** The conversation's size now: the newest request's tokens. */
  contextTokens: number;
  /** From `modelUsage.<model>.contextWindow`, when Claude Code reports it. */
  contextWindow?: number;
  /** What this call cost (not the session's running total). */
  costUsd: number;
  /** The session's running total as the CLI reports it, for the next call's difference. */
  sessionCostUsd: number;
  /** API responses and tool calls of this call, from the stream. */
  modelCalls: number;
  toolCalls: number;
  toolErrors: number;
  /** Plan mode: the plan the model gave `ExitPlanMode`, when it called it (see stream-events). */
  plan?: string;
  /** The CLI stopped at a limit issueloop gave it (`--max-turns`, `--max-budget-usd`). */
  limit?: 'model_calls' | 'cost';
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
  /** The session: a new one under this id (`--session-id`), or an earlier one continued (`--resume`). */
  session?: { id: string; resume: boolean };
  /** The session's running total before this call, when the result does not say what the call cost. */
  previousCostUsd?: number;
  /** `--max-turns`: API responses this call may make. */
  maxTurns?: number;
  /** `--max-budget-usd`: what this call may spend (the CLI counts its own process, not the session). */
  maxBudgetUsd?: number;
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
  /** Told of each API response and tool call as the stream brings it. */
  onEvent?: (event: StreamEvent) => void;
  /** Every line the CLI printed, as printed (a trace, a recording). */
  onLine?: (line: string) => void;
}

const TAIL_CHARS = 4_000;

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

function contextWindowOf(json: ResultJson, model: string): number | undefined {
  const usage = json.modelUsage ?? {};
  const exact = usage[model]?.contextWindow;
  if (typeof exact === 'number') return exact;
  // Claude Code names the model it resolved an alias to (`sonnet` → a dated id).
  const any = Object.values(usage).find((entry) => typeof entry?.contextWindow === 'number');
  return any ? (any.contextWindow as number) : undefined;
}

/**
 * This call's cost: what the CLI says it spent since its previous result, else the session's running
 * total less what it was before the call (a resumed session's total counts every earlier call).
 */
function callCost(json: ResultJson | undefined, previous: number): number {
  const since = json?.model_usage_since_last_result;
  if (since && typeof since === 'object') {
    return Object.values(since).reduce((sum, entry) => sum + num(entry?.costUSD), 0);
  }
  return Math.max(num(json?.total_cost_usd) - previous, 0);
}

const LIMITS: Record<string, ClaudeCodeCall['limit']> = {
  error_max_turns: 'model_calls',
  error_max_budget_usd: 'cost',
};

/** The tools that change files or run commands, denied to a plan session. */
const PLAN_DENIED = ['Bash', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit'];

export function claudeArgs(options: ClaudeCodeRunOptions): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--model', options.model];
  if (options.permissionMode) args.push('--permission-mode', options.permissionMode);
  if (options.allowedTools?.length) args.push('--allowedTools', options.allowedTools.join(','));
  // Plan mode (a plan session) also denies the writing tools outright: a deny rule wins over any
  // allow rule, the repository's own .claude/settings.json included.
  if (options.permissionMode === 'plan') args.push('--disallowedTools', PLAN_DENIED.join(','));
  if (options.maxTurns !== undefined)
    args.push('--max-turns', String(Math.max(1, Math.floor(options.maxTurns))));
  // The CLI refuses a budget of 0 ("must be a number greater than 0"): nothing left is its least.
  if (options.maxBudgetUsd !== undefined)
    args.push('--max-budget-usd', Math.max(options.maxBudgetUsd, 0.0001).toFixed(4));
  if (options.session) args.push(options.session.resume ? '--resume' : '--session-id', options.session.id);
  if (options.appendSystemPrompt) args.push('--append-system-prompt', options.appendSystemPrompt);
  return args;
}

export async function runClaudeCode(options: ClaudeCodeRunOptions): Promise<ClaudeCodeResult> {
  const child = spawnSandboxed(options.sandbox ?? UNSANDBOXED, [options.bin, ...claudeArgs(options)], {
    cwd: options.cwd,
    env: options.env,
    stdin: 'pipe',
  }) as ChildProcessWithoutNullStreams;
  const reader = createStreamReader(options.onEvent);
  let pending = '';
  let tail = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-TAIL_CHARS);
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      options.onLine?.(line);
      reader.line(line);
    }
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
  if (pending) options.onLine?.(pending);
  reader.line(pending);
  return judge(options, reader.state(), { exitCode, stopped, stderr, tail });
}

function judge(
  options: ClaudeCodeRunOptions,
  stream: ReturnType<ReturnType<typeof createStreamReader>['state']>,
  end: { exitCode: number | null; stopped: 'timeout' | 'aborted' | undefined; stderr: string; tail: string },
): ClaudeCodeResult {
  const found = stream.result;
  const json = found?.json;
  const usage = json?.usage ? usageOf(json.usage) : NO_USAGE;
  const previous = options.previousCostUsd ?? 0;
  const costUsd = callCost(json, previous);
  const contextWindow = json ? contextWindowOf(json, options.model) : undefined;
  const limit = typeof json?.subtype === 'string' ? LIMITS[json.subtype] : undefined;
  // The id is known before the call when issueloop gave it: a killed call still names its session file.
  // What the process printed is only taken when it is an id: it goes back on a command line (`--resume`).
  const printed = [json?.session_id, stream.sessionId].find(isSessionId);
  const sessionId = printed ?? options.session?.id;
  const base: ClaudeCodeCall = {
    ...(sessionId ? { sessionId } : {}),
    text: typeof json?.result === 'string' ? json.result : '',
    usage,
    // Without a response in the stream (a CLI that printed only its result), the call's usage is all there is.
    contextTokens: contextOf(stream.lastUsage ?? usage),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    costUsd,
    sessionCostUsd: json ? num(json.total_cost_usd) : previous + costUsd,
    modelCalls: stream.modelCalls,
    toolCalls: stream.toolCalls,
    toolErrors: stream.toolErrors,
    ...(stream.plan !== undefined ? { plan: stream.plan } : {}),
    ...(limit ? { limit } : {}),
    exitCode: end.exitCode,
  };

  if (end.stopped) {
    const text = `claude ${end.stopped === 'timeout' ? 'timed out' : 'was interrupted'}`;
    const why = new DOMException(text, end.stopped === 'timeout' ? 'TimeoutError' : 'AbortError');
    return { ...base, ok: false, text, error: classifyError(why) };
  }
  if (json && json.is_error === false && end.exitCode === 0) return { ...base, ok: true };
  // A failure, read as a log tail newest line first: the result line when there is one (it says
  // is_error, and counts first), then what the process printed.
  const evidence = found ? `${end.stderr}\n${found.line}` : `${end.tail}\n${end.stderr}`;
  const message =
    base.text ||
    (limit
      ? `claude stopped at its ${limit === 'cost' ? 'budget' : 'turn limit'} (${String(json?.subtype)})`
      : '') ||
    end.stderr.trim().split('\n').at(-1) ||
    `claude exited with ${end.exitCode}`;
  const structured = structuredFailure(json, message);
  return { ...base, ok: false, text: message, error: classifyError(structured ?? evidence) };
}
