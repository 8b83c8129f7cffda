import type Anthropic from '@anthropic-ai/sdk';
import type { ClassifiedError } from '../core/classify/classify-error.js';
import { IssueloopError } from '../core/errors.js';

/** The Messages API shapes the agent speaks; issueloop is Claude-specific, not a provider abstraction. */
/** A conversation turn: issueloop never sends system-role messages (the system prompt is separate). */
export type MessageParam = Anthropic.UserMessageParam | Anthropic.AssistantMessageParam;
export type ContentBlockParam = Anthropic.ContentBlockParam;
export type ToolUseBlockParam = Anthropic.ToolUseBlockParam;
export type ToolResultBlockParam = Anthropic.ToolResultBlockParam;
export type TextBlockParam = Anthropic.TextBlockParam;
export type ToolDefinition = Anthropic.ToolUnion;
export type StopReason = Anthropic.StopReason;

/** Tokens of one call, split the way they are billed. */
export interface TokenUsage {
  /** Uncached input after the last cache breakpoint. */
  input: number;
  /** Input written to the prompt cache (billed at 1.25× input for 5 minutes, 2× for an hour). */
  cacheWrite: number;
  /** The part of `cacheWrite` written for an hour (`cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1h?: number;
  /** Input served from the prompt cache (billed at 0.1× input). */
  cacheRead: number;
  output: number;
}

export interface ModelRequest {
  model: string;
  /** System prompt blocks, stable first: the adapter puts a cache breakpoint on the last one. */
  system: readonly string[];
  messages: readonly MessageParam[];
  tools: readonly ToolDefinition[];
  maxTokens: number;
}

export interface ModelResponse {
  /** The model that answered (after failover, not necessarily the one asked for first). */
  model: string;
  /** The assistant's content, ready to be appended to the conversation as-is. */
  content: ContentBlockParam[];
  stopReason: StopReason | null;
  usage: TokenUsage;
  costUsd: number;
  /** The API's message id (`msg_…`), when it gave one: telemetry's `gen_ai.response.id`. */
  id?: string;
}

/** One Messages API call. Throws `ModelError` (already classified) on failure; aborts end it at once. */
export type CallModel = (request: ModelRequest, signal?: AbortSignal) => Promise<ModelResponse>;

/** A failed model call, classified once where it entered (the adapter). */
export class ModelError extends IssueloopError {
  readonly classified: ClassifiedError;
  readonly model: string;

  constructor(model: string, classified: ClassifiedError, options?: { cause?: unknown }) {
    const hint = classified.hint ? `: ${classified.hint}` : '';
    super(`model_${classified.errorClass}`, `${model}: ${classified.message}${hint}`, options);
    this.classified = classified;
    this.model = model;
  }
}

export function isModelError(err: unknown): err is ModelError {
  return err instanceof ModelError;
}

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({
  input: 0,
  cacheWrite: 0,
  cacheRead: 0,
  output: 0,
});

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    cacheRead: a.cacheRead + b.cacheRead,
    output: a.output + b.output,
    ...(a.cacheWrite1h || b.cacheWrite1h
      ? { cacheWrite1h: (a.cacheWrite1h ?? 0) + (b.cacheWrite1h ?? 0) }
      : {}),
  };
}

/** Every input token the request carried, cached or not. */
export function inputTokens(usage: TokenUsage): number {
  return usage.input + usage.cacheWrite + usage.cacheRead;
}

/** The conversation's size after this response: all its input plus the output now appended to it. */
export function contextTokens(usage: TokenUsage): number {
  return inputTokens(usage) + usage.output;
}

export function totalTokens(usage: TokenUsage): number {
  return contextTokens(usage);
}
