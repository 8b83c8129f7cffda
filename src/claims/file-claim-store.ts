import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Log } from '../core/logger.js';
import { removeOrphanTemps } from '../core/remove-orphan-temps.js';
import { withStateAccess } from '../core/state-access.js';
import { ensureStateDir } from '../core/state-dir.js';
import { writeFileDurably } from '../core/write-file-durably.js';
import type { ClaimStore } from './claim-store.js';
import { readClaimsFile, salvageNextToken, serializeClaimsFile } from './claims-file.js';
import { emptyClaimsFile } from './claims-schema.js';
import { type ClaimStoreOptions, type ClaimsBackend, createClaimStore } from './create-claim-store.js';
import { createFileLock, type FileLockOptions } from './file-lock.js';

export type { FileLockOptions } from './file-lock.js';

/**
 * A JSON file plus a separate lock directory. Every transaction takes the lock, reads and
 * validates the file, runs the rule, and replaces the file (temp file, fsync, rename) only after
 * checking, between the fsync and the rename, that the lock is still its own. The first transaction
 * of each backend also removes temp files that writers killed mid-write left behind.
 */
export function createFileBackend(file: string, lockOptions: FileLockOptions = {}, log?: Log): ClaimsBackend {
  // The lock directory is the first thing made in the state directory: when that fails for want of
  // the directory, the lock creates it (with its .gitignore) and carries on.
  const lock = createFileLock(file, { ...lockOptions, prepareDir: () => ensureStateDir(dirname(file)) });
  // A read-only or unwritable state directory fails the first lock attempt, at once, with the fix.
  const writing = { path: file, action: 'write' } as const;
  let swept = false;

  /** Once per backend, under the lock: every writer of the file holds it while its temp file exists. */
  async function sweepOrphans(): Promise<void> {
    if (swept) return;
    swept = true;
    try {
      // File times are the filesystem's: the clock the lock is judged by, not the claim store's.
      const removed = await removeOrphanTemps(file, { now: Date.now(), abandonedAfterMs: lock.staleMs });
      if (removed.length > 0) {
        log?.info({ file, removed }, `claims: removed ${removed.length} temp file(s) a killed writer left`);
      }
    } catch (err) {
      // Leftover temp files are inert: never fail a transaction over them.
      log?.warn({ file, err: String(err) }, 'claims: could not look for temp files a killed writer left');
    }
  }

  return {
    transact: (fn) =>
      withStateAccess(writing, () =>
        lock.withLock(async (held) => {
          await sweepOrphans();
          const tx = await fn(await readClaimsFile(file));
          if (tx.next) {
            const text = serializeClaimsFile(tx.next);
            await writeFileDurably(file, text, { beforeRename: () => held.assertHeld() });
          }
          return tx.result;
        }),
      ),
    read: () => readClaimsFile(file),
  };
}

export interface FileClaimStoreOptions extends ClaimStoreOptions {
  file: string;
  lock?: FileLockOptions;
}

export function createFileClaimStore(options: FileClaimStoreOptions): ClaimStore {
  return createClaimStore(createFileBackend(options.file, options.lock, options.log), options);
}

/**
 * Moves an unreadable claims file aside as `<file>.corrupt-<time>`, byte for byte, and starts a new
 * one whose fencing tokens continue above the old file's (read from its text when possible,
 * otherwise from the clock), all under the lock. Returns the path of the kept copy.
 */
export async function moveClaimsFileAside(
  file: string,
  now: number,
  lockOptions: FileLockOptions = {},
): Promise<string> {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  return withStateAccess({ path: file, action: 'write' }, () =>
    createFileLock(file, lockOptions).withLock(async (held) => {
      const bytes = await readFile(file);
      await writeFileDurably(target, bytes, { beforeRename: () => held.assertHeld() });
      const fresh = emptyClaimsFile(salvageNextToken(bytes.toString('utf8')) ?? now);
      await writeFileDurably(file, serializeClaimsFile(fresh), { beforeRename: () => held.assertHeld() });
      return target;
    }),
  );
}
