import fs from 'node:fs';
import { stat } from 'node:fs/promises';
import lockfile from 'proper-lockfile';
import { LockCompromisedError, LockTimeoutError } from './errors.js';

export interface FileLockOptions {
  /** A lock whose mtime is older than this is stale and may be taken over (proper-lockfile, min 2000). */
  staleMs?: number;
  /** How often a held lock's mtime is refreshed (min 1000, at most staleMs / 2). */
  updateMs?: number;
  /** How long to wait for the lock before giving up with `LockTimeoutError`. */
  waitMs?: number;
}

/** Inside `withLock`: proof, just before a write, that the lock is still this holder's. */
export interface HeldLock {
  assertHeld(): Promise<void>;
}

export interface FileLock {
  readonly lockPath: string;
  withLock<T>(fn: (held: HeldLock) => Promise<T>): Promise<T>;
}

const DEFAULT_STALE_MS = 10_000;
const DEFAULT_WAIT_MS = 30_000;

/**
 * The lock of one data file: a directory `<file>.lock` managed by proper-lockfile, which refreshes
 * its mtime while held and lets others take it over once it is stale. proper-lockfile notices a
 * lost lock only on its next refresh, so `assertHeld` checks now: the directory must still be the
 * one this holder created (inode and birth time) and not close to stale.
 */
export function createFileLock(file: string, options: FileLockOptions = {}): FileLock {
  const lockPath = `${file}.lock`;
  const staleMs = Math.max(options.staleMs ?? DEFAULT_STALE_MS, 2_000);
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  // A lock this close to stale may be taken over while we rename: treat it as lost already.
  const marginMs = Math.min(1_000, staleMs / 4);
  // proper-lockfile removes the directory through this fs on release. After a loss found by
  // assertHeld the directory may be another process's, so that one removal is skipped; release()
  // still runs, which stops proper-lockfile's refresh timer and its exit-time cleanup.
  let skipRemoval = false;
  const lockFs = {
    ...fs,
    rmdir: (path: fs.PathLike, callback: (err: NodeJS.ErrnoException | null) => void) => {
      if (skipRemoval) callback(null);
      else fs.rmdir(path, callback);
    },
  };
  // Transactions of one process queue here rather than polling the lock directory against each other.
  let queue: Promise<unknown> = Promise.resolve();

  async function acquire(onCompromised: (err: Error) => void): Promise<() => Promise<void>> {
    try {
      return await lockfile.lock(file, {
        lockfilePath: lockPath,
        // The data file may not exist yet; the lock directory sits next to where it will be.
        realpath: false,
        stale: staleMs,
        update: options.updateMs ?? staleMs / 2,
        fs: lockFs,
        // Short jittered waits: a transaction holds the lock for about a millisecond.
        retries: {
          retries: 20,
          forever: true,
          maxRetryTime: waitMs,
          factor: 1.5,
          minTimeout: 1,
          maxTimeout: 10,
          randomize: true,
        },
        onCompromised,
      });
    } catch (err) {
      // Out of time, the retry loop reports the last ELOCKED or its own timeout error (no code).
      const { code, message } = err as NodeJS.ErrnoException;
      if (code === 'ELOCKED' || message.includes('RetryOperation timeout')) {
        throw new LockTimeoutError(lockPath, waitMs, { cause: err });
      }
      throw err;
    }
  }

  async function locked<T>(fn: (held: HeldLock) => Promise<T>): Promise<T> {
    let lost: { error: Error; ours: boolean } | undefined;
    const release = await acquire((err) => {
      lost ??= { error: err, ours: false };
    });
    const mine = await stat(lockPath).catch(() => undefined);
    const held: HeldLock = {
      async assertHeld() {
        if (!lost) {
          const now = await stat(lockPath).catch(() => undefined);
          const why = !now
            ? 'the lock directory was removed'
            : now.ino !== mine?.ino || now.birthtimeMs !== mine.birthtimeMs
              ? 'another process took the lock over'
              : now.mtimeMs < Date.now() - staleMs + marginMs
                ? 'the lock went stale, another process may take it over'
                : undefined;
          if (why) lost = { error: new Error(why), ours: true };
        }
        if (lost) throw new LockCompromisedError(lockPath, lost.error.message, { cause: lost.error });
      },
    };
    try {
      return await fn(held);
    } finally {
      skipRemoval = lost?.ours === true;
      await release().catch(() => undefined);
      skipRemoval = false;
    }
  }

  return {
    lockPath,
    withLock<T>(fn: (held: HeldLock) => Promise<T>): Promise<T> {
      const run = queue.then(() => locked(fn));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
