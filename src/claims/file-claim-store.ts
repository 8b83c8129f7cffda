import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
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
 * checking, between the fsync and the rename, that the lock is still its own.
 */
export function createFileBackend(file: string, lockOptions: FileLockOptions = {}): ClaimsBackend {
  // Created once per store, and again whenever the lock finds it gone (or creating it failed).
  let dirReady: Promise<void> | undefined;
  const ensureDir = (): Promise<void> => {
    dirReady ??= ensureStateDir(dirname(file)).catch((err: unknown) => {
      dirReady = undefined;
      throw err;
    });
    return dirReady;
  };
  const lock = createFileLock(file, {
    ...lockOptions,
    prepareDir: () => {
      dirReady = undefined;
      return ensureDir();
    },
  });

  return {
    async transact(fn) {
      await ensureDir();
      return lock.withLock(async (held) => {
        const tx = await fn(await readClaimsFile(file));
        if (tx.next) {
          await held.assertHeld();
          await writeFileDurably(file, serializeClaimsFile(tx.next), {
            beforeRename: () => held.assertHeld(),
          });
        }
        return tx.result;
      });
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
  return createFileLock(file, lockOptions).withLock(async (held) => {
    const bytes = await readFile(file);
    await writeFileDurably(target, bytes, { beforeRename: () => held.assertHeld() });
    const fresh = emptyClaimsFile(salvageNextToken(bytes.toString('utf8')) ?? now);
    await writeFileDurably(file, serializeClaimsFile(fresh), { beforeRename: () => held.assertHeld() });
    return target;
  });
}
