import type { ListeningEmulator } from '../github/types.js';
import type { ApiErrorType } from './errors.js';

export type { ListeningEmulator } from '../github/types.js';
export type { ApiErrorType } from './errors.js';

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';
export type CacheTtl = '5m' | '1h';

/**
 * A content block as a client sent it. Only the fields the emulator reads are typed; anything else the
 * client put there is kept, so scripts can inspect it.
 */
export interface RequestBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  cache_control?: unknown;
  [key: string]: unknown;
}

export interface RequestMessage {
  /** `system` is a mid-conversation system message; it is neither side of a tool call. */
  role: 'user' | 'assistant' | 'system';
  /** Always a list: string content arrives here as one text block. */
  content: RequestBlock[];
}

export interface RequestTool {
  name: string;
  [key: string]: unknown;
}

/** A validated `/v1/messages` body, normalized for scripts; `body` is the JSON exactly as sent. */
export interface ParsedMessagesRequest {
  model: string;
  /** 0 for `count_tokens`, which takes no `max_tokens`. */
  maxTokens: number;
  /** Always a list: a string system prompt arrives here as one text block. */
  system: RequestBlock[];
  messages: RequestMessage[];
  tools: RequestTool[];
  stream: boolean;
  body: Record<string, unknown>;
}

export type ReplyBlock =
  | { type: 'text'; text: string }
  /** Without an id the emulator assigns `toolu_<n>`, counting per emulator. */
  | { type: 'tool_use'; id?: string; name: string; input: Record<string, unknown> };

export interface ScriptedError {
  status: number;
  type: ApiErrorType;
  message: string;
  headers?: Record<string, string>;
}

export type ScriptedReply =
  | { content: ReplyBlock[]; stopReason: StopReason; outputTokens?: number }
  | { error: ScriptedError }
  /** Never answers: the caller must abort, time out, or close the listener. */
  | { hang: true }
  /**
   * Streaming requests get `message_start`, the first `afterBlocks` blocks of `content` (all of them by
   * default; `content` defaults to none) and then an `error` event. Non-streaming requests get the error
   * as an HTTP status, as if the failure had happened before the first byte.
   */
  | { streamError: { type: ApiErrorType; message: string }; afterBlocks?: number; content?: ReplyBlock[] };

/** `index` counts the requests that reached the script (valid ones), from 0. */
export type Script = (
  request: ParsedMessagesRequest,
  index: number,
) => ScriptedReply | Promise<ScriptedReply>;

export interface ModelSpec {
  maxInputTokens: number;
  maxTokens: number;
}

export interface AnthropicEmulatorOptions {
  /** The only key accepted, as `x-api-key` or `Authorization: Bearer`; `DEFAULT_API_KEY` by default. */
  apiKey?: string;
  /** Paths are relative to it (a path prefix works); `https://api.anthropic.test` by default. */
  baseUrl?: string;
  /** Known models; the three `DEFAULT_MODELS` by default. */
  models?: Record<string, ModelSpec>;
  /** Decides every valid `/v1/messages` answer; echoes the last user text by default. */
  script?: Script;
  /** Epoch milliseconds, for cache expiry. */
  now?: () => number;
  /** Breakpoint prefixes with fewer estimated tokens are silently not cached; 1024 by default. */
  minCacheableTokens?: number;
}

/** One request as the emulator saw it. */
export interface AnthropicRequestLog {
  method: string;
  /** Path and query relative to the base URL: `/v1/messages`. */
  path: string;
  /** Parsed when it is JSON, else the raw text; undefined when empty. */
  body: unknown;
  /** Lower-cased names; `authorization` and `x-api-key` values are replaced by `[redacted]`. */
  headers: Record<string, string>;
  /** Whether the body asked for `stream: true`. */
  stream: boolean;
  /** 0 while unanswered (and forever for `hang`). */
  status: number;
}

/** Cumulative token accounting over every successful `/v1/messages` answer. */
export interface CacheStats {
  input: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
  requests: number;
}

export interface AnthropicEmulator {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** In-process, for `new Anthropic({ fetch })`; other origins fail like a refused connection. */
  fetch: typeof globalThis.fetch;
  /** A real loopback HTTP server: true streaming, and hangs that `close()` cuts. */
  listen(): Promise<ListeningEmulator>;
  /** The live log. */
  readonly requests: AnthropicRequestLog[];
  cacheStats(): CacheStats;
  /** Forgets every cached prefix (as an eviction would); `cacheStats()` keeps counting. */
  resetCache(): void;
}
