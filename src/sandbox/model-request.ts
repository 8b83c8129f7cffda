import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { inputTokenBound, jsonValues, MAX_JSON_VALUES } from './model-tokens.js';

/**
 * The body of a Messages (or count_tokens) call, read by the model proxy (model-proxy.ts) before it
 * forwards anything: the agent drives `claude` and can call the proxy itself, so a request may ask
 * the API to do what the sandbox forbids. Anthropic's servers reach a URL the request names for an
 * MCP connector (`mcp_servers`), a server tool (`web_fetch_*`, `web_search_*`, `code_execution_*`…)
 * or a content block whose source is a URL: a way out past the egress allowlist. Those are refused.
 * What is forwarded is the JSON as the proxy parsed it, re-serialized: the API reads the very fields
 * the proxy inspected (no duplicate key or encoding trick read one way here and another there).
 */

/** The API's own limit on a request body. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** What the proxy knows of an allowed call before forwarding it, for its owner's budget. */
export interface CallFacts {
  /** `model`, when the body names one. */
  model?: string;
  /** `max_tokens`, when the body holds a positive integer there. */
  maxTokens?: number;
  /** The body's size in bytes: no more tokens than that can be in its text. */
  bytes: number;
  /**
   * The most input tokens the call can be billed for (model-tokens.ts): the bytes, plus the most an
   * image can cost for each image block, or the largest context window when it carries a document
   * the proxy cannot measure (a PDF). `bytes` when left out.
   */
  inputTokens?: number;
}

/** A request the proxy refuses for what its body or headers ask, and why (counted under that name). */
export interface BodyRefusal {
  status: number;
  type: string;
  reason: string;
}

export type Inspected = { refusal: BodyRefusal } | { body: Buffer; facts: CallFacts };

/**
 * Tool kinds the API may be asked for: tools `claude` runs itself (a custom tool has no `type`, or
 * `custom`; bash, text editor, computer and memory are Anthropic-defined but run by the client), and
 * tool search, which the API runs over the request's own tool definitions. Every other kind is run by
 * Anthropic's servers with a reach of its own (web_fetch, web_search, code_execution, an MCP
 * toolset…) and is refused, a kind the API adds later included.
 */
const CLIENT_TOOL = /^(custom|bash_\d+|text_editor_\d+|computer_\d+|memory_\d+|tool_search_tool_[a-z0-9_]+)$/;
/** Fields that make the API connect somewhere or run code for the caller. */
const REACHING_FIELDS = ['mcp_servers', 'container'];
/** `anthropic-beta` features that let the API reach out for the caller. */
const REACHING_BETA = /^(mcp-client|web-fetch|web-search|code-execution|files-api|skills)-/i;

/**
 * The bytes of request bodies a proxy holds at once (read, inspected, waiting for the budget, being
 * sent): every call's body is bounded, and so is their sum, whatever the number of connections.
 */
export interface BodyPool {
  held: number;
  readonly max: number;
}

/** Room for a few bodies of the API's largest at once: Claude Code sends far smaller ones. */
export const MAX_HELD_BYTES = 96 * 1024 * 1024;

const TOO_LARGE: BodyRefusal = { status: 413, type: 'request_too_large', reason: 'a body over 32 MB' };
/** A 429, which the CLI retries after a while: the bodies in flight will have gone by then. */
const BUSY: BodyRefusal = { status: 429, type: 'rate_limit_error', reason: 'too many bodies held at once' };

/**
 * The body, taken from `pool` (give its `size` back once the call has ended), or the refusal of one
 * larger than `max` or than the pool has room for: nothing more is buffered then.
 */
export function readBody(
  req: IncomingMessage,
  pool: BodyPool,
  max = MAX_REQUEST_BYTES,
): Promise<{ body: Buffer; size: number } | { refusal: BodyRefusal }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refusal: BodyRefusal | undefined;
    const fail = (why: BodyRefusal) => {
      refusal ??= why;
      pool.held -= size;
      size = 0;
      chunks.length = 0;
    };
    req.on('data', (chunk: Buffer) => {
      if (refusal) return;
      if (size + chunk.length > max) return fail(TOO_LARGE);
      if (pool.held + chunk.length > pool.max) return fail(BUSY);
      size += chunk.length;
      pool.held += chunk.length;
      chunks.push(chunk);
    });
    let ended = false;
    req.on('end', () => {
      ended = true;
      resolve(refusal ? { refusal } : { body: Buffer.concat(chunks), size });
    });
    const gone = () => {
      if (ended) return;
      if (!refusal) fail({ status: 400, type: 'invalid_request_error', reason: 'a body cut off' });
      resolve({ refusal: refusal ?? TOO_LARGE });
    };
    req.on('error', gone);
    req.on('close', gone);
  });
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A content block (at any depth of `messages` or `system`, tool results included) whose source is a URL. */
function urlSource(value: unknown, depth = 0): boolean {
  if (depth > 64) return true;
  if (Array.isArray(value)) return value.some((item) => urlSource(item, depth + 1));
  if (!isObject(value)) return false;
  if (value.type === 'url' || (isObject(value.source) && value.source.type === 'url')) return true;
  // A tool call's input is the model's own output, never fetched by the API.
  return Object.entries(value).some(([key, inner]) => key !== 'input' && urlSource(inner, depth + 1));
}

function reachingTool(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'tools that are not a list';
  for (const tool of tools) {
    const type = isObject(tool) ? tool.type : undefined;
    if (type !== undefined && (typeof type !== 'string' || !CLIENT_TOOL.test(type)))
      return `the server tool ${String(type).slice(0, 60)}`;
  }
  return undefined;
}

function reachingBeta(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers['anthropic-beta'];
  const values = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((v) => v.trim());
  const beta = values.find((value) => REACHING_BETA.test(value));
  return beta ? `the beta ${beta.slice(0, 60)}` : undefined;
}

/** Why a parsed body (and its headers) asks the API to reach out, or undefined. */
function reaching(body: Json, headers: IncomingHttpHeaders): string | undefined {
  const field = REACHING_FIELDS.find((name) => body[name] !== undefined);
  if (field) return field;
  return (
    reachingTool(body.tools) ??
    reachingBeta(headers) ??
    (urlSource(body.messages) || urlSource(body.system) ? 'a content source by URL' : undefined)
  );
}

/**
 * Fields only a Messages call that generates takes. `count_tokens` is not priced (it is free): one
 * carrying them is refused rather than left to the endpoint, so it can never be a call that answers.
 */
const GENERATING_FIELDS = ['max_tokens', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k'];

/** The body to forward and its facts, or the refusal of a call that must not reach the API. */
export function inspectBody(call: string, raw: Buffer, headers: IncomingHttpHeaders): Inspected {
  if (jsonValues(raw) > MAX_JSON_VALUES) {
    const reason = `a body of more than ${MAX_JSON_VALUES} JSON values`;
    return { refusal: { status: 400, type: 'invalid_request_error', reason } };
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (!isObject(body) || headers['content-encoding'] !== undefined) {
    return { refusal: { status: 400, type: 'invalid_request_error', reason: 'a body that is not JSON' } };
  }
  const why = reaching(body, headers);
  if (why) return { refusal: { status: 403, type: 'permission_error', reason: why } };
  const generating = GENERATING_FIELDS.find((name) => body[name] !== undefined);
  if (call.endsWith('/count_tokens') && generating) {
    const reason = `${generating}, a field of a call that generates`;
    return { refusal: { status: 400, type: 'invalid_request_error', reason } };
  }
  const clean = Buffer.from(JSON.stringify(body));
  const { model, max_tokens: maxTokens } = body;
  return {
    body: clean,
    facts: {
      ...(typeof model === 'string' ? { model } : {}),
      ...(Number.isSafeInteger(maxTokens) && (maxTokens as number) > 0
        ? { maxTokens: maxTokens as number }
        : {}),
      bytes: clean.length,
      inputTokens: inputTokenBound(body, clean.length),
    },
  };
}
