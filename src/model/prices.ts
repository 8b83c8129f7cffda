import type { TokenUsage } from './types.js';

/** US dollars per million tokens. Cache prices default to Anthropic's multipliers of the input price. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_write?: number | undefined;
  cache_read?: number | undefined;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** 5-minute cache writes cost 1.25× input, reads 0.1× (reference.md, prompt caching). */
export const CACHE_WRITE_MULTIPLIER = 1.25;
export const CACHE_READ_MULTIPLIER = 0.1;

/**
 * List prices by model line. A model id is priced by the first line it names; an id naming no
 * known line is priced as the dearest line, so a budget can be reached early but never overrun
 * unnoticed. `model.prices` in the config overrides any of these by exact model id.
 */
export const BUILT_IN_PRICES: Readonly<Record<'opus' | 'sonnet' | 'haiku', ModelPrice>> = {
  opus: { input: 5, output: 25 },
  sonnet: { input: 3, output: 15 },
  haiku: { input: 1, output: 5 },
};

export function priceOf(model: string, overrides: PriceTable = {}): ModelPrice {
  const exact = overrides[model];
  if (exact) return exact;
  for (const line of ['haiku', 'sonnet', 'opus'] as const) {
    if (model.toLowerCase().includes(line)) return BUILT_IN_PRICES[line];
  }
  return BUILT_IN_PRICES.opus;
}

/** The dollar cost of one call's usage. */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  const cacheWrite = price.cache_write ?? price.input * CACHE_WRITE_MULTIPLIER;
  const cacheRead = price.cache_read ?? price.input * CACHE_READ_MULTIPLIER;
  const dollars =
    usage.input * price.input +
    usage.cacheWrite * cacheWrite +
    usage.cacheRead * cacheRead +
    usage.output * price.output;
  return dollars / 1_000_000;
}
