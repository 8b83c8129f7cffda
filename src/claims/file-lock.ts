import type fs from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import lockfileInternals from 'proper-lockfile/lib/lockfile.js';
import { createSerialQueue } from '../core/serial-queue.js';
import { LockCompromisedError, LockTimeoutError } from './errors.js';
import { createLockDirFs } from './lock-dir-fs.js';

export interface FileLockOptions {
  /** A lock whose mtime is older than this is stale and may be taken over (proper-lockfile, min 2000). */
  staleMs?: number;
  /** How often a held lock's mtime is refreshed (min 1000, at most staleMs / 2). */
  updateMs?: number;
  /** How long one `withLock` call waits for the lock before giving up with `LockTimeoutError`. */
  waitMs?: number;
  /** Recreates the lock's parent directory when it has gone missing. */
  prepareDir?: () => Promise<void>;
}

/** Inside `withLock`: proof, just before a write, that the lock is still this holder's. */
export interface HeldLock {
  assertHeld(): Promise<void>;
}

export interface FileLock {
  readonly lockPath: string;
  /** The bound after which a lock nobody refreshes is taken over. */
  readonly staleMs: number;
  withLock<T>(fn: (held: HeldLock) => Promise<T>): Promise<T>;
}

const DEFAULT_STALE_MS = 10_000;
const DEFAULT_WAIT_MS = 30_000;

// proper-lockfile's own record of each held lock, including the mtime it last gave the directory:
// the test it uses itself to decide whether a lock is still its own. Read-only use of an internal
// module, which is why package.json pins proper-lockfile to 4.1.x; without it the inode and birth
// time checks remain.
// Imported statically, not through createRequire: a bundle (the GitHub Action) must hold the same
// instance that proper-lockfile itself uses, or its record is empty and every lock looks lost.
type LockRecord = { mtime?: Date; released?: boolean };
const lockRecords = (lockfileInternals as { getLocks?: () => Record<string, LockRecord> }).getLocks;

/**
 * The lock of one data file: a directory `<file>.lock` managed by proper-lockfile, which refreshes
 * its mtime while held and lets others take it over once it is stale. proper-lockfile notices a
 * lost lock only on its next refresh, so `assertHeld` checks now: the directory must still be the
 * one this holder created (inode, birth time, and the mtime proper-lockfile last set) and not
 * close to stale.
 */
export function createFileLock(file: string, options: FileLockOptions = {}): FileLock {
  const lockPath = `${file}.lock`;
  const staleMs = Math.max(options.staleMs ?? DEFAULT_STALE_MS, 2_000);
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  // A lock this close to stale may be taken over while we rename: treat it as lost already.
  const marginMs = Math.min(1_000, staleMs / 4);
  const dirFs = createLockDirFs({
    staleMs,
    onMissingParent:
      options.prepareDir ?? (() => mkdir(dirname(lockPath), { recursive: true }).then(() => undefined)),
  });
  // Transactions of one process queue here rather than polling the lock directory against each other.
  const serial = createSerialQueue();

  const lockOnce = (onCompromised: (err: Error) => void) =>
    lockfile.lock(file, {
      lockfilePath: lockPath,
      // The data file may not exist yet; the lock directory sits next to where it will be.
      realpath: false,
      stale: staleMs,
      update: options.updateMs ?? staleMs / 2,
      fs: dirFs.fs,
      retries: 0,
      onCompromised,
    });

  /**
   * Takes the lock, waiting only while another process holds it (ELOCKED). proper-lockfile's own
   * retries would retry any error until the deadline, so a read-only or unwritable state directory
   * cost 30 s before it failed; here every other error ends the wait at once.
   */
  async function acquire(
    deadline: number,
    onCompromised: (err: Error) => void,
  ): Promise<() => Promise<void>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await lockOnce(onCompromised);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
        const left = deadline - Date.now();
        if (left <= 0) throw new LockTimeoutError(lockPath, waitMs, { cause: err });
        // Short jittered waits, growing to 10 ms: a transaction holds the lock for about a millisecond.
        // (The same schedule proper-lockfile's retries used: 1 ms × 1.5^attempt, randomised.)
        await delay(Math.min(left, 10, (1 + Math.random()) * 1.5 ** attempt));
      }
    }
  }

  const lossOf = (mine: fs.Stats | undefined) => lockLoss({ lockPath, file, staleMs, marginMs }, mine);

  async function locked<T>(deadline: number, fn: (held: HeldLock) => Promise<T>): Promise<T> {
    let lost: { error: Error; ours: boolean } | undefined;
    const release = await acquire(deadline, (err) => {
      lost ??= { error: err, ours: false };
    });
    const mine = await stat(lockPath).catch(() => undefined);
    const held: HeldLock = {
      async assertHeld() {
        if (!lost) {
          const why = await lossOf(mine);
          if (why) lost = { error: new Error(why), ours: true };
        }
        if (lost) throw new LockCompromisedError(lockPath, lost.error.message, { cause: lost.error });
      },
    };
    try {
      return await fn(held);
    } finally {
      // Also after a read-only or failed transaction: never remove a directory that is not ours.
      if (!lost) {
        const why = await lossOf(mine);
        if (why) lost = { error: new Error(why), ours: true };
      }
      // After a loss found here the directory may be another process's: it is left alone. release()
      // still runs, which stops proper-lockfile's refresh timer and its exit-time cleanup.
      await dirFs.releasing(release, { keepDirectory: lost?.ours === true }).catch(() => undefined);
    }
  }

  return {
    lockPath,
    staleMs,
    withLock<T>(fn: (held: HeldLock) => Promise<T>): Promise<T> {
      // The wait is counted from the call, including time queued behind this process's own transactions.
      const deadline = Date.now() + waitMs;
      return serial(() => locked(deadline, fn));
    },
  };
}

/** Why the lock directory is no longer this holder's, or undefined while it is. */
async function lockLoss(
  lock: { lockPath: string; file: string; staleMs: number; marginMs: number },
  mine: fs.Stats | undefined,
): Promise<string | undefined> {
  const { lockPath, file, staleMs, marginMs } = lock;
  const now = await stat(lockPath).catch(() => undefined);
  if (!now) return 'the lock directory was removed';
  if (now.mtimeMs < Date.now() - staleMs + marginMs)
    return 'the lock went stale, another process may take it over';
  // Dated this far ahead, other processes take the lock over at once (lock-staleness.ts).
  if (now.mtimeMs > Date.now() + staleMs - marginMs)
    return 'the lock is dated in the future (was the clock changed?), another process may take it over';
  const record = lockRecords?.()[resolve(file)];
  const recordedMtime = record && !record.released ? record.mtime?.getTime() : undefined;
  if (
    now.ino !== mine?.ino ||
    now.birthtimeMs !== mine.birthtimeMs ||
    (lockRecords !== undefined && recordedMtime !== now.mtime.getTime())
  ) {
    return 'another process took the lock over';
  }
  return undefined;
}
