import Anthropic from '@anthropic-ai/sdk';
import { classifyError } from '../core/classify/classify-error.js';
import type { Redactor } from '../core/redact.js';
import { withCacheBreakpoints } from './cache-breakpoints.js';
import { costOf, type PriceTable, priceOf } from './prices.js';
import {
  type CallModel,
  type ContentBlockParam,
  ModelError,
  type ModelRequest,
  type ModelResponse,
  type TokenUsage,
} from './types.js';

export const DEFAULT_ANTHROPIC_URL = 'https://api.anthropic.com';

export interface AnthropicModelOptions {
  apiKey: string;
  /** `ANTHROPIC_BASE_URL`, read by the entrypoint; defaults to Anthropic's API. */
  baseURL?: string | undefined;
  fetch?: typeof globalThis.fetch;
  /** Per-request timeout; the SDK's default is 10 minutes. */
  timeoutMs?: number;
  prices?: PriceTable;
  now?: () => number;
  redact?: Redactor;
}

export interface AnthropicModel {
  callModel: CallModel;
  /** `max_input_tokens` from `GET /v1/models/{id}`, or undefined when the API cannot tell. */
  contextWindow(model: string, signal?: AbortSignal): Promise<number | undefined>;
}

/**
 * The SDK refuses a non-streaming request whose `max_tokens` could take longer than 10 minutes
 * (its own estimate: 128,000 tokens per hour); above that the request is streamed.
 */
export const NON_STREAMING_MAX_TOKENS = Math.floor((10 * 60 * 128_000) / (60 * 60));

export function needsStreaming(maxTokens: number): boolean {
  return maxTokens > NON_STREAMING_MAX_TOKENS;
}

function toUsage(usage: Anthropic.Usage): TokenUsage {
  return {
    input: usage.input_tokens,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
    cacheRead: usage.cache_read_input_tokens ?? 0,
    output: usage.output_tokens,
    ...(usage.cache_creation?.ephemeral_1h_input_tokens
      ? { cacheWrite1h: usage.cache_creation.ephemeral_1h_input_tokens }
      : {}),
  };
}

/** The response's blocks as request blocks, so the conversation can carry them back unchanged. */
export function toContentParams(content: readonly Anthropic.ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        out.push({ type: 'text', text: block.text });
        break;
      case 'tool_use':
        out.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
        break;
      case 'thinking':
        out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        break;
      case 'redacted_thinking':
        out.push({ type: 'redacted_thinking', data: block.data });
        break;
      default:
        // Server tools are not offered by issueloop, so their blocks cannot appear; none is dropped silently.
        out.push(block as unknown as ContentBlockParam);
    }
  }
  return out;
}

/**
 * `callModel` over @anthropic-ai/sdk. The SDK's own retries are off (`maxRetries: 0`) so the
 * reliability layer is the only retry policy; every failure leaves here as a classified `ModelError`.
 */
export function createAnthropicModel(options: AnthropicModelOptions): AnthropicModel {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? DEFAULT_ANTHROPIC_URL,
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    logLevel: 'off',
  });
  const now = options.now ?? Date.now;
  const windows = new Map<string, number | undefined>();

  const fail = (model: string, err: unknown, signal?: AbortSignal): never => {
    if (signal?.aborted) throw err;
    const classified = classifyError(err, {
      now: now(),
      ...(options.redact ? { redact: options.redact } : {}),
    });
    throw new ModelError(model, classified, { cause: err });
  };

  const callModel: CallModel = async (request: ModelRequest, signal?: AbortSignal) => {
    const parts = withCacheBreakpoints(request);
    const body: Anthropic.MessageCreateParamsNonStreaming = {
      model: request.model,
      max_tokens: request.maxTokens,
      messages: parts.messages,
      ...(parts.system.length > 0 ? { system: parts.system } : {}),
      ...(parts.tools.length > 0 ? { tools: parts.tools } : {}),
    };
    const requestOptions = signal ? { signal } : {};
    let message: Anthropic.Message;
    try {
      message = needsStreaming(request.maxTokens)
        ? await client.messages.stream(body, requestOptions).finalMessage()
        : await client.messages.create(body, requestOptions);
    } catch (err) {
      return fail(request.model, err, signal);
    }
    const usage = toUsage(message.usage);
    const response: ModelResponse = {
      model: message.model || request.model,
      content: toContentParams(message.content),
      stopReason: message.stop_reason,
      usage,
      costUsd: costOf(usage, priceOf(request.model, options.prices)),
      ...(message.id ? { id: message.id } : {}),
    };
    return response;
  };

  const contextWindow = async (model: string, signal?: AbortSignal): Promise<number | undefined> => {
    if (windows.has(model)) return windows.get(model);
    let window: number | undefined;
    try {
      const info = await client.models.retrieve(model, undefined, signal ? { signal } : {});
      window = info.max_input_tokens ?? undefined;
    } catch (err) {
      if (signal?.aborted) throw err;
      const classified = classifyError(err, { now: now() });
      // A wrong model id or key is the next call's problem to report; only a definite answer is kept.
      if (classified.errorClass !== 'not_found') return undefined;
      window = undefined;
    }
    windows.set(model, window);
    return window;
  };

  return { callModel, contextWindow };
}
