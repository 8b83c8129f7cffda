import { dirname } from 'node:path';
import { createSerialQueue } from '../core/serial-queue.js';
import { withStateAccess } from '../core/state-access.js';
import { ensureStateDir } from '../core/state-dir.js';
import { writeFileDurably } from '../core/write-file-durably.js';
import { createFileLock, type FileLockOptions } from './file-lock.js';

/**
 * Where a store keeps one JSON state (the claims, the outcome records, the spend windows): in this
 * process, or in a file of the state directory under its own lock. `transact` runs `fn` on the current
 * state with every other writer shut out and persists `next` (when given) before resolving; if `fn`
 * throws nothing is written. `read` is a consistent snapshot, without the lock.
 */
export interface StateBackend<S> {
  transact<T>(fn: (current: S) => StateTransaction<S, T> | Promise<StateTransaction<S, T>>): Promise<T>;
  read(): Promise<S>;
}

export interface StateTransaction<S, T> {
  result: T;
  next?: S;
}

/** State in this process only (tests, `--dry-run`): transactions run one after another, like a file's. */
export function createMemoryStateBackend<S>(initial: S): StateBackend<S> {
  let state = structuredClone(initial);
  const serial = createSerialQueue();
  return {
    transact: (fn) =>
      serial(async () => {
        const tx = await fn(structuredClone(state));
        if (tx.next) state = structuredClone(tx.next);
        return tx.result;
      }),
    read: async () => structuredClone(state),
  };
}

export interface FileStateOptions<S> {
  /** The file's state, validated; a missing file is the empty state. */
  read: (file: string) => Promise<S>;
  lock?: FileLockOptions;
  /**
   * Runs under the lock before each transaction, told after how long the lock counts as abandoned
   * (the claims file sweeps the temp files a killed writer left).
   */
  beforeTransact?: (staleMs: number) => Promise<void>;
}

/**
 * A file in the state directory: each transaction takes the file's lock directory (made with the
 * state directory when missing), reads and validates the file, and replaces it (temp file, fsync,
 * rename) only after checking that the lock is still its own. Access failures name the path and fix.
 */
export function createFileStateBackend<S>(file: string, options: FileStateOptions<S>): StateBackend<S> {
  const lock = createFileLock(file, { ...options.lock, prepareDir: () => ensureStateDir(dirname(file)) });
  return {
    transact: (fn) =>
      withStateAccess({ path: file, action: 'write' }, () =>
        lock.withLock(async (held) => {
          await options.beforeTransact?.(lock.staleMs);
          const tx = await fn(await options.read(file));
          if (tx.next) {
            await writeFileDurably(file, `${JSON.stringify(tx.next, null, 2)}\n`, {
              beforeRename: () => held.assertHeld(),
            });
          }
          return tx.result;
        }),
      ),
    read: () => withStateAccess({ path: file, action: 'read' }, () => options.read(file)),
  };
}
