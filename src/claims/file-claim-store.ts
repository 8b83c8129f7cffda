import { rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { ensureStateDir } from '../core/state-dir.js';
import type { ClaimStore } from './claim-store.js';
import { readClaimsFile, serializeClaimsFile } from './claims-file.js';
import { type ClaimStoreOptions, type ClaimsBackend, createClaimStore } from './create-claim-store.js';
import { LockCompromisedError, LockTimeoutError } from './errors.js';

export interface FileLockOptions {
  /** A lock whose mtime is older than this is stale and may be taken over (proper-lockfile, min 2000). */
  staleMs?: number;
  /** How often a held lock's mtime is refreshed (min 1000, at most staleMs / 2). */
  updateMs?: number;
  /** How long a transaction waits for the lock before giving up with `LockTimeoutError`. */
  waitMs?: number;
}

const DEFAULT_STALE_MS = 10_000;
const DEFAULT_WAIT_MS = 30_000;

function lockPathOf(file: string): string {
  return `${file}.lock`;
}

/**
 * A JSON file plus a separate lock directory (proper-lockfile). Every transaction takes the lock,
 * reads and validates the file, runs the rule, checks the lock is still ours, and replaces the file
 * atomically (write-file-atomic: temp file, fsync, rename). A compromised lock aborts before writing.
 */
export function createFileBackend(file: string, lock: FileLockOptions = {}): ClaimsBackend {
  const lockPath = lockPathOf(file);
  const staleMs = Math.max(lock.staleMs ?? DEFAULT_STALE_MS, 2_000);
  const waitMs = lock.waitMs ?? DEFAULT_WAIT_MS;

  async function acquire(compromised: { error?: Error }): Promise<() => Promise<void>> {
    try {
      return await lockfile.lock(file, {
        lockfilePath: lockPath,
        // The data file may not exist yet; the lock directory sits next to where it will be.
        realpath: false,
        stale: staleMs,
        ...(lock.updateMs === undefined ? {} : { update: lock.updateMs }),
        retries: {
          retries: 20,
          forever: true,
          maxRetryTime: waitMs,
          factor: 1.5,
          minTimeout: 1,
          maxTimeout: 50,
          randomize: true,
        },
        onCompromised: (err) => {
          compromised.error = err;
        },
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ELOCKED')
        throw new LockTimeoutError(lockPath, waitMs, { cause: err });
      throw err;
    }
  }

  /**
   * proper-lockfile notices a compromise only on its next refresh; a write needs proof now. A lock
   * found lost is marked compromised, so the transaction does not remove a directory it may not own.
   */
  async function assertStillHeld(compromised: { error?: Error }): Promise<void> {
    if (!compromised.error) {
      try {
        if ((await stat(lockPath)).mtimeMs < Date.now() - staleMs) {
          compromised.error = new Error('the lock went stale, another process may own it now');
        }
      } catch (err) {
        compromised.error = Object.assign(new Error('the lock directory was removed'), { cause: err });
      }
    }
    if (compromised.error) {
      throw new LockCompromisedError(lockPath, compromised.error.message, { cause: compromised.error });
    }
  }

  return {
    async transact(fn) {
      await ensureStateDir(dirname(file));
      const compromised: { error?: Error } = {};
      const release = await acquire(compromised);
      try {
        const tx = await fn(await readClaimsFile(file));
        if (tx.next) {
          await assertStillHeld(compromised);
          await writeFileAtomic(file, serializeClaimsFile(tx.next), { fsync: true });
        }
        return tx.result;
      } finally {
        // After a compromise the lock directory may be someone else's now: never remove it.
        if (!compromised.error) await release().catch(() => undefined);
      }
    },
    read: () => readClaimsFile(file),
  };
}

export interface FileClaimStoreOptions extends ClaimStoreOptions {
  file: string;
  lock?: FileLockOptions;
}

export function createFileClaimStore(options: FileClaimStoreOptions): ClaimStore {
  return createClaimStore(createFileBackend(options.file, options.lock), options);
}

/**
 * Moves an unreadable claims file aside as `<file>.corrupt-<time>` (under the lock, so no
 * transaction sees it half-moved) and returns the new path. The copy is kept for a post-mortem.
 */
export async function moveClaimsFileAside(
  file: string,
  now: number,
  lock: FileLockOptions = {},
): Promise<string> {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  const release = await lockfile.lock(file, {
    lockfilePath: lockPathOf(file),
    realpath: false,
    stale: Math.max(lock.staleMs ?? DEFAULT_STALE_MS, 2_000),
    retries: { retries: 50, factor: 1.5, minTimeout: 10, maxTimeout: 500, randomize: true },
  });
  try {
    await rename(file, target);
  } finally {
    await release().catch(() => undefined);
  }
  return target;
}
