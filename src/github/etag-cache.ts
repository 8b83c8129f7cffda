import { z } from 'zod';
import type { Log } from '../core/logger.js';
import { readCacheFile, writeCacheFile } from './cache-file.js';

/**
 * ETags of the GET requests the adapter repeats every round (backlog pages, issue events,
 * permissions, comments), with the compact data each answer was reduced to. A round over an
 * unchanged backlog sends `If-None-Match` everywhere and is answered by 304s, which GitHub does not
 * charge; the data then comes from here.
 */
export interface EtagEntry {
  etag: string;
  data: unknown;
  /** The `rel="next"` page, for listings (a 304 may not repeat the Link header). */
  next: string | null;
  /** Epoch ms of the last use, for eviction. */
  used: number;
}

export interface EtagCache {
  get(key: string): EtagEntry | undefined;
  set(key: string, entry: EtagEntry): void;
  /** Writes the cache if it changed since the last flush. */
  flush(): Promise<void>;
  readonly size: number;
}

export const ETAG_CACHE_VERSION = 1;
/** Enough for a 1,000-issue backlog with its events and comments; the least recently used go first. */
export const MAX_ETAG_ENTRIES = 20_000;

const EtagFileSchema = z.object({
  version: z.literal(ETAG_CACHE_VERSION),
  entries: z.record(
    z.string(),
    z.object({ etag: z.string(), data: z.unknown(), next: z.string().nullable(), used: z.number() }),
  ),
});

function createCache(
  initial: Record<string, EtagEntry>,
  save: (entries: Record<string, EtagEntry>) => Promise<void>,
  maxEntries: number,
): EtagCache {
  const entries = new Map(Object.entries(initial));
  let dirty = false;
  return {
    get: (key) => entries.get(key),
    set(key, entry) {
      entries.delete(key);
      entries.set(key, entry);
      dirty = true;
    },
    async flush() {
      if (!dirty) return;
      if (entries.size > maxEntries) {
        const oldest = [...entries].sort(([, a], [, b]) => a.used - b.used);
        for (const [key] of oldest.slice(0, entries.size - maxEntries)) entries.delete(key);
      }
      dirty = false;
      await save(Object.fromEntries(entries));
    },
    get size() {
      return entries.size;
    },
  };
}

export function createMemoryEtagCache(maxEntries = MAX_ETAG_ENTRIES): EtagCache {
  return createCache({}, async () => {}, maxEntries);
}

/** Loads `<state_dir>/github-etags.json` (absent or unreadable → empty). */
export async function openFileEtagCache(
  file: string,
  ctx: { log: Log; now: number },
  maxEntries = MAX_ETAG_ENTRIES,
): Promise<EtagCache> {
  const loaded = await readCacheFile(file, EtagFileSchema, ctx);
  const initial = (loaded?.entries ?? {}) as Record<string, EtagEntry>;
  return createCache(
    initial,
    (entries) => writeCacheFile(file, { version: ETAG_CACHE_VERSION, entries }),
    maxEntries,
  );
}
