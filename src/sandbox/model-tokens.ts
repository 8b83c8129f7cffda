/**
 * Bounds on a Messages body the model proxy reads (model-request.ts) before anything is parsed or
 * forwarded: how many JSON values it holds (parsing is on the harness's one event loop), and how
 * many input tokens the API can bill for it (the budget's reservation, model-budget.ts).
 */

import type { ModelResponseUsage } from './model-usage.js';

/**
 * JSON values a body may hold. A real Claude Code call's size is in its strings: its tool schemas,
 * then a few values per message and block (the contract suite's largest body from the real CLI 2.1.328:
 * 83 KB, 692 values).
 * A body of millions of tiny values (`[{},{},…]`, 11 million in 32 MB) takes seconds of JSON.parse
 * and a gigabyte of heap, all on the event loop every session shares; 500,000 parse in ~0.1 s.
 */
export const MAX_JSON_VALUES = 500_000;

/**
 * At least the number of values in `raw` less one: every value after a container's first follows a
 * comma, every first one a bracket. Strings are skipped (a comma in a text is not a value). One pass
 * over the bytes, ~90 ms for 32 MB, with nothing allocated.
 */
export function jsonValues(raw: Uint8Array): number {
  let values = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i];
    if (inString) {
      if (byte === 0x5c) i += 1;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x2c || byte === 0x5b || byte === 0x7b) values += 1;
  }
  return values;
}

/**
 * The most tokens one image block costs: the API scales an image down to fit about 1.15 megapixels
 * (1568 px on its long edge) and bills width × height / 750 tokens, ~1,600 at most (Vision guide,
 * "Calculate image costs"). A tiny PNG of 1092×1092 is a few hundred bytes and ~1,590 tokens.
 */
export const IMAGE_TOKENS = 1_600;

/**
 * The largest context window a model takes (the 1M one): the input bound of a call carrying a
 * document the proxy cannot measure. A PDF is billed per page, text and an image of each, and its
 * text can be compressed far below a byte a token: neither its size nor a cheap look bounds it.
 */
export const MAX_CONTEXT_TOKENS = 1_000_000;

/** `max_tokens` when a body leaves it out or makes it up: more than any model's output limit. */
export const MAX_OUTPUT_TOKENS = 128_000;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A document block whose tokens its bytes bound: plain text, or content blocks (counted themselves). */
function measurable(block: Json): boolean {
  const source = isObject(block.source) ? block.source.type : undefined;
  return source === 'text' || source === 'content';
}

/** Image blocks in `value` (at any depth), or Infinity when it holds a document that is not measurable. */
function imageBlocks(value: unknown, depth = 0): number {
  if (depth > 64) return Number.POSITIVE_INFINITY;
  if (Array.isArray(value)) return value.reduce<number>((n, item) => n + imageBlocks(item, depth + 1), 0);
  if (!isObject(value)) return 0;
  if (value.type === 'document' && !measurable(value)) return Number.POSITIVE_INFINITY;
  let images = value.type === 'image' ? 1 : 0;
  for (const inner of Object.values(value)) {
    if (typeof inner === 'object' && inner !== null) images += imageBlocks(inner, depth + 1);
  }
  return images;
}

/**
 * The most input tokens the API can bill for a parsed Messages body of `bytes` bytes: a token of
 * text is never less than a byte of the JSON that carries it; each image block adds IMAGE_TOKENS
 * (its base64 bytes are counted as well: a bound, not an estimate); a document that is not plain
 * text makes it the largest context window.
 */
export function inputTokenBound(body: Json, bytes: number): number {
  const images = imageBlocks(body.messages) + imageBlocks(body.system);
  if (images === Number.POSITIVE_INFINITY) return Math.max(bytes, MAX_CONTEXT_TOKENS);
  return bytes + images * IMAGE_TOKENS;
}

/**
 * What a Messages call its client hung up on before its answer ended is charged: the API bills what
 * it generated until it saw the cancellation, which the proxy cannot know (the output count comes in
 * the last event). The input the answer's start told (or, before it, the bound of the body's), and
 * all of `max_tokens`: the call's reservation, never less than its bill.
 */
export function cutOffUsage(
  report: ModelResponseUsage | undefined,
  facts: { model?: string; maxTokens?: number; bytes: number; inputTokens?: number },
): ModelResponseUsage {
  const output = facts.maxTokens ?? MAX_OUTPUT_TOKENS;
  if (report) return { ...report, usage: { ...report.usage, output: Math.max(report.usage.output, output) } };
  const input = facts.inputTokens ?? facts.bytes;
  return {
    model: facts.model ?? '',
    usage: { input: 0, cacheWrite: input, cacheWrite1h: input, cacheRead: 0, output },
  };
}
