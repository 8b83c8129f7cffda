import { readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { durableTempWriter } from './write-file-durably.js';

export interface OrphanTempOptions {
  /** Now on the filesystem's clock (file mtimes), in ms. */
  now: number;
  /** A temp file older than this is abandoned whoever wrote it. */
  abandonedAfterMs: number;
  /** Whether a process with this pid runs on this host; `process.kill(pid, 0)` unless a test says otherwise. */
  isAlive?: (pid: number) => boolean;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files `writeFileDurably` left for `file` when their writer is gone: no process
 * here has its pid, or the file is older than `abandonedAfterMs`. A temp file lives for one write and
 * fsync, so one that old was abandoned even if its pid was reused or belongs to another host or pid
 * namespace. A fresh temp file of a live pid is kept: it may be a writer mid-write. Meant to run while
 * holding the lock every writer of `file` takes, so that such a writer can only be one that has lost
 * the lock, whose rename is refused anyway. Returns the paths removed.
 */
export async function removeOrphanTemps(file: string, options: OrphanTempOptions): Promise<string[]> {
  const dir = dirname(file);
  const name = basename(file);
  const isAlive = options.isAlive ?? processIsAlive;
  const removed: string[] = [];
  for (const entry of await readdir(dir)) {
    const pid = durableTempWriter(name, entry);
    if (pid === undefined) continue;
    const path = join(dir, entry);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    if (isAlive(pid) && info.mtimeMs >= options.now - options.abandonedAfterMs) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return removed;
}
