import type { PromptBlock } from './prompt-blocks.js';
import type { CacheStats, CacheTtl } from './types.js';

/** How many block positions before each breakpoint the API also checks for an earlier cached prefix. */
export const CACHE_LOOKBACK_BLOCKS = 20;
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1024;

const TTL_MS: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** One request's input, split the way the API bills it. */
export interface CacheUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** `cacheWrite` split by the TTL of the breakpoint that ends each written span. */
  write5m: number;
  write1h: number;
}

export interface PromptCache {
  /** Reads and writes the cache for one request's prompt; returns its token split. */
  account(blocks: readonly PromptBlock[]): CacheUsage;
  record(usage: CacheUsage, outputTokens: number): void;
  stats(): CacheStats;
  reset(): void;
}

interface Entry {
  expiresAt: number;
  ttlMs: number;
}

/**
 * Prefix accounting like the API's: the longest live cached prefix ending at a breakpoint, or up to
 * `CACHE_LOOKBACK_BLOCKS` positions before one, is read; everything from there to the last breakpoint
 * is written (each breakpoint prefix is stored); the rest is plain input. Prefixes below the minimum
 * size are neither stored nor reported, as the API skips them silently.
 */
export function createPromptCache(now: () => number, minCacheableTokens: number): PromptCache {
  const entries = new Map<string, Entry>();
  const totals: CacheStats = { input: 0, cacheWrite: 0, cacheRead: 0, output: 0, requests: 0 };

  const live = (hash: string, at: number): Entry | undefined => {
    const entry = entries.get(hash);
    if (entry && entry.expiresAt <= at) entries.delete(hash);
    return entry && entry.expiresAt > at ? entry : undefined;
  };

  return {
    account(blocks) {
      const at = now();
      const ends: number[] = [];
      let sum = 0;
      for (const block of blocks) {
        sum += block.tokens;
        ends.push(sum);
      }
      const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i] : []));

      let hit = -1;
      for (const position of breakpoints) {
        for (let i = position; i >= Math.max(0, position - CACHE_LOOKBACK_BLOCKS) && i > hit; i -= 1) {
          const entry = live(blocks[i]?.prefixHash ?? '', at);
          if (!entry) continue;
          entry.expiresAt = at + entry.ttlMs;
          hit = i;
          break;
        }
      }
      const cacheRead = hit >= 0 ? (ends[hit] ?? 0) : 0;

      let covered = cacheRead;
      const written: Record<CacheTtl, number> = { '5m': 0, '1h': 0 };
      for (const position of breakpoints) {
        const block = blocks[position];
        const end = ends[position] ?? 0;
        if (!block?.breakpoint || end < minCacheableTokens) continue;
        const ttlMs = TTL_MS[block.breakpoint];
        const existing = live(block.prefixHash, at);
        entries.set(block.prefixHash, {
          expiresAt: Math.max(existing?.expiresAt ?? 0, at + ttlMs),
          ttlMs: Math.max(existing?.ttlMs ?? 0, ttlMs),
        });
        if (end > covered) {
          written[block.breakpoint] += end - covered;
          covered = end;
        }
      }
      return {
        input: sum - covered,
        cacheRead,
        cacheWrite: covered - cacheRead,
        write5m: written['5m'],
        write1h: written['1h'],
      };
    },
    record(usage, outputTokens) {
      totals.input += usage.input;
      totals.cacheWrite += usage.cacheWrite;
      totals.cacheRead += usage.cacheRead;
      totals.output += outputTokens;
      totals.requests += 1;
    },
    stats: () => ({ ...totals }),
    reset: () => entries.clear(),
  };
}
