/**
 * Claude Code's `--output-format stream-json --verbose` output, read line by line as it arrives: the
 * `system/init` line names the session, each `assistant` line is part of one API response (a response
 * with several content blocks comes as several lines sharing its message id, each with the usage
 * from the response's start), `user` lines carry tool results, and the last line is the `result`
 * object `--output-format json` would print. Recorded from the 2.1.x CLI (test/fixtures/claude-code).
 */

export interface ClaudeCodeUsage {
  input: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
}

export const NO_USAGE: ClaudeCodeUsage = { input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };

/** What the engine is told while a call runs: a model response began, a tool was called or answered. */
export type StreamEvent =
  | { type: 'response'; id: string; model: string; usage: ClaudeCodeUsage }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; isError: boolean; chars: number };

/** The `result` object (both output formats print it; stream-json as its last line). */
export interface ResultJson {
  type?: unknown;
  subtype?: unknown;
  is_error?: unknown;
  result?: unknown;
  session_id?: unknown;
  /** The session's running total: a resumed session's includes every earlier call. */
  total_cost_usd?: unknown;
  usage?: Record<string, unknown>;
  modelUsage?: Record<string, { contextWindow?: unknown }>;
  /** This process's usage since its previous result, per model, with `costUSD` (2.1.x). */
  model_usage_since_last_result?: Record<string, { costUSD?: unknown }>;
  /** The API's HTTP status behind a failed call (2.1.x). */
  api_error_status?: unknown;
  /** The API's error type behind it, e.g. `rate_limit_error`. */
  api_error_type?: unknown;
  terminal_reason?: unknown;
}

type Json = Record<string, unknown>;

export const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function usageOf(raw: unknown): ClaudeCodeUsage {
  if (!raw || typeof raw !== 'object') return NO_USAGE;
  const u = raw as Json;
  return {
    input: num(u.input_tokens),
    cacheWrite: num(u.cache_creation_input_tokens),
    cacheRead: num(u.cache_read_input_tokens),
    output: num(u.output_tokens),
  };
}

/** Every token a request sent and received: the conversation's size as that request saw it. */
export const contextOf = (u: ClaudeCodeUsage) => u.input + u.cacheWrite + u.cacheRead + u.output;

function chars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  return content.reduce(
    (n: number, block: Json) => n + (typeof block?.text === 'string' ? block.text.length : 0),
    0,
  );
}

/**
 * The plan of an `ExitPlanMode` call (`{ plan: "…" }`): how plan mode asks the model to end. Headless
 * (`-p`) the 2.1.x CLI does not offer or run that tool ("ExitPlanMode is disabled for this session"),
 * and its answer after the refusal may be a bare "Plan submitted.": the call's input is the plan.
 */
function exitPlanOf(block: Json): string | undefined {
  if (block.name !== 'ExitPlanMode' || !block.input || typeof block.input !== 'object') return undefined;
  const plan = (block.input as Json).plan;
  return typeof plan === 'string' && plan.trim() !== '' ? plan : undefined;
}

/**
 * Folds the stream into what a call is judged by, telling `onEvent` of each response and tool call
 * as it arrives. Lines that are not JSON (a warning the CLI printed) are skipped.
 */
export function createStreamReader(onEvent?: (event: StreamEvent) => void) {
  let sessionId: string | undefined;
  let result: { json: ResultJson; line: string } | undefined;
  const responses = new Set<string>();
  let lastUsage: ClaudeCodeUsage | undefined;
  let toolCalls = 0;
  let toolErrors = 0;
  let plan: string | undefined;

  const assistant = (message: Json) => {
    const id = typeof message.id === 'string' ? message.id : `response-${responses.size + 1}`;
    if (!responses.has(id)) {
      responses.add(id);
      lastUsage = usageOf(message.usage);
      const model = typeof message.model === 'string' ? message.model : '';
      onEvent?.({ type: 'response', id, model, usage: lastUsage });
    }
    for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
      if (block?.type !== 'tool_use') continue;
      toolCalls += 1;
      plan = exitPlanOf(block) ?? plan;
      onEvent?.({
        type: 'tool_call',
        id: String(block.id ?? ''),
        name: String(block.name ?? 'tool'),
        input: block.input,
      });
    }
  };
  const user = (message: Json) => {
    for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
      if (block?.type !== 'tool_result') continue;
      const isError = block.is_error === true;
      if (isError) toolErrors += 1;
      onEvent?.({
        type: 'tool_result',
        id: String(block.tool_use_id ?? ''),
        isError,
        chars: chars(block.content),
      });
    }
  };

  return {
    line(raw: string) {
      const line = raw.trim();
      if (!line.startsWith('{')) return;
      let json: Json;
      try {
        json = JSON.parse(line) as Json;
      } catch {
        return;
      }
      if (typeof json.session_id === 'string') sessionId = json.session_id;
      const message = json.message && typeof json.message === 'object' ? (json.message as Json) : undefined;
      if (json.type === 'assistant' && message) assistant(message);
      else if (json.type === 'user' && message) user(message);
      else if (json.type === 'result' || typeof json.is_error === 'boolean') result = { json, line };
    },
    state() {
      return {
        ...(sessionId ? { sessionId } : {}),
        result,
        modelCalls: responses.size,
        toolCalls,
        toolErrors,
        /** The newest plan the model gave ExitPlanMode (plan mode), whether or not the CLI ran it. */
        ...(plan !== undefined ? { plan } : {}),
        /** The newest request's usage: the context the conversation has now. */
        lastUsage,
      };
    },
  };
}
