import { readFile } from 'node:fs/promises';
import type { Log } from '../core/logger.js';
import { removeOrphanTemps } from '../core/remove-orphan-temps.js';
import { withStateAccess } from '../core/state-access.js';
import { writeFileDurably } from '../core/write-file-durably.js';
import type { ClaimStore } from './claim-store.js';
import { readClaimsFile, salvageNextToken, serializeClaimsFile } from './claims-file.js';
import { emptyClaimsFile } from './claims-schema.js';
import { type ClaimStoreOptions, type ClaimsBackend, createClaimStore } from './create-claim-store.js';
import { createFileLock, type FileLockOptions } from './file-lock.js';
import { createFileStateBackend } from './state-backend.js';

export type { FileLockOptions } from './file-lock.js';

/**
 * A JSON file plus a separate lock directory. Every transaction takes the lock, reads and
 * validates the file, runs the rule, and replaces the file (temp file, fsync, rename) only after
 * checking, between the fsync and the rename, that the lock is still its own. The first transaction
 * of each backend also removes temp files that writers killed mid-write left behind.
 */
export function createFileBackend(file: string, lockOptions: FileLockOptions = {}, log?: Log): ClaimsBackend {
  let swept = false;
  /** Once per backend, under the lock: every writer of the file holds it while its temp file exists. */
  async function sweepOrphans(staleMs: number): Promise<void> {
    if (swept) return;
    swept = true;
    try {
      // File times are the filesystem's: the clock the lock is judged by, not the claim store's.
      const removed = await removeOrphanTemps(file, { now: Date.now(), abandonedAfterMs: staleMs });
      if (removed.length > 0) {
        log?.info({ file, removed }, `claims: removed ${removed.length} temp file(s) a killed writer left`);
      }
    } catch (err) {
      // Leftover temp files are inert: never fail a transaction over them.
      log?.warn({ file, err: String(err) }, 'claims: could not look for temp files a killed writer left');
    }
  }
  return createFileStateBackend(file, {
    read: readClaimsFile,
    lock: lockOptions,
    beforeTransact: sweepOrphans,
  });
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
