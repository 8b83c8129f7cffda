import type { TokenUsage } from './types.js';

/** US dollars per million tokens. Cache prices default to Anthropic's multipliers of the input price. */
export interface ModelPrice {
  input: number;
  output: number;
  /** A 5-minute cache write. */
  cache_write?: number | undefined;
  /** A 1-hour cache write: 2× input by default. */
  cache_write_1h?: number | undefined;
  cache_read?: number | undefined;
  /** Billed at the long-context premium above LONG_CONTEXT_TOKENS of input (set by the model's line). */
  long_context?: boolean | undefined;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * 5-minute cache writes cost 1.25× input, 1-hour ones 2×, reads 0.1× (reference.md, prompt caching;
 * Anthropic's pricing page: e.g. Haiku 4.5 $1 input, $1.25 5m write, $2 1h write, $0.10 hit).
 */
export const CACHE_WRITE_MULTIPLIER = 1.25;
export const CACHE_WRITE_1H_MULTIPLIER = 2;
export const CACHE_READ_MULTIPLIER = 0.1;

/**
 * Long context: a request of more than 200K input tokens (cached or not), which only the 1M-context
 * window (the `context-1m-*` beta) takes, is billed at a premium: its input prices (cache writes
 * and reads included) 2×, its output 1.5× (Anthropic's pricing, "Long context pricing": Sonnet 4 and
 * 4.5 $6 / $22.50 instead of $3 / $15). It is applied to the Sonnet and Opus lines
 * (and to an unknown model, priced as the dearest line): one of them that serves 1M at a flat rate
 * is over-priced (the budget is reached early, never overrun). Haiku has no 1M window.
 */
export const LONG_CONTEXT_TOKENS = 200_000;
export const LONG_CONTEXT_INPUT_MULTIPLIER = 2;
export const LONG_CONTEXT_OUTPUT_MULTIPLIER = 1.5;

/**
 * List prices by model line. A model id is priced by the first line it names; an id naming no
 * known line is priced as the dearest line, so a budget can be reached early but never overrun
 * unnoticed. `model.prices` in the config overrides any of these by exact model id.
 */
export const BUILT_IN_PRICES: Readonly<Record<'opus' | 'sonnet' | 'haiku', ModelPrice>> = {
  opus: { input: 5, output: 25, long_context: true },
  sonnet: { input: 3, output: 15, long_context: true },
  haiku: { input: 1, output: 5 },
};

export function priceOf(model: string, overrides: PriceTable = {}): ModelPrice {
  const line = lineOf(model);
  const exact = overrides[model];
  // A price the config sets keeps its line's long-context premium.
  if (exact) return { ...exact, long_context: BUILT_IN_PRICES[line].long_context };
  return BUILT_IN_PRICES[line];
}

function lineOf(model: string): 'opus' | 'sonnet' | 'haiku' {
  for (const line of ['haiku', 'sonnet', 'opus'] as const) {
    if (model.toLowerCase().includes(line)) return line;
  }
  return 'opus';
}

/** The dollar cost of one call's usage: 1-hour cache writes at their price, long context at its premium. */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  const cacheWrite = price.cache_write ?? price.input * CACHE_WRITE_MULTIPLIER;
  const cacheWrite1h = price.cache_write_1h ?? price.input * CACHE_WRITE_1H_MULTIPLIER;
  const cacheRead = price.cache_read ?? price.input * CACHE_READ_MULTIPLIER;
  const hour = Math.min(usage.cacheWrite1h ?? 0, usage.cacheWrite);
  const input =
    usage.input * price.input +
    (usage.cacheWrite - hour) * cacheWrite +
    hour * cacheWrite1h +
    usage.cacheRead * cacheRead;
  const long =
    price.long_context === true && usage.input + usage.cacheWrite + usage.cacheRead > LONG_CONTEXT_TOKENS;
  const dollars = long
    ? input * LONG_CONTEXT_INPUT_MULTIPLIER + usage.output * price.output * LONG_CONTEXT_OUTPUT_MULTIPLIER
    : input + usage.output * price.output;
  return dollars / 1_000_000;
}
