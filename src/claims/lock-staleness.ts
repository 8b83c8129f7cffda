import type fs from 'node:fs';

/** Decides when a lock directory no live holder keeps fresh may be taken over. */
export interface LockStaleness {
  isStale(path: string, stat: Pick<fs.Stats, 'mtimeMs' | 'ino'>): boolean;
}

/**
 * A live holder refreshes its lock's mtime every `staleMs / 2` at most, so a lock is stale when its
 * mtime has not moved for `staleMs`. Three ways to know:
 * - its mtime is more than `staleMs` in the past (proper-lockfile's own rule);
 * - its mtime is more than `staleMs` in the future: no holder whose clock agrees with ours within the
 *   stale bound wrote it (the bound every lock on a shared directory already relies on);
 * - this process has seen the same directory (inode) carry the same mtime for `staleMs`. For a lock
 *   dated in the past this never comes before the first rule; it is what frees a lock dated a little
 *   in the future. proper-lockfile alone compares `mtime < now - stale`, which a future mtime does
 *   not satisfy until the clock has caught up with it: a lock dated a year ahead held its file a year.
 * A holder on a filesystem with one-second mtimes dates its lock up to a second ahead; it also
 * refreshes it, so the last rule never applies to it.
 */
export function createLockStaleness(options: { staleMs: number; now: () => number }): LockStaleness {
  const seen = new Map<string, { ino: number; mtimeMs: number; since: number }>();
  return {
    isStale(path, stat) {
      const now = options.now();
      if (stat.mtimeMs < now - options.staleMs || stat.mtimeMs > now + options.staleMs) return true;
      const first = seen.get(path);
      if (!first || first.ino !== stat.ino || first.mtimeMs !== stat.mtimeMs) {
        seen.set(path, { ino: stat.ino, mtimeMs: stat.mtimeMs, since: now });
        return false;
      }
      return now - first.since >= options.staleMs;
    },
  };
}
