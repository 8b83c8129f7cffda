import { dirname } from 'node:path';
import { createSerialQueue } from '../core/serial-queue.js';
import { withStateAccess } from '../core/state-access.js';
import { ensureStateDir } from '../core/state-dir.js';
import { writeFileDurably } from '../core/write-file-durably.js';
import { createFileLock, type FileLockOptions } from './file-lock.js';
import {
  emptyOutcomesFile,
  type OutcomesFile,
  readOutcomesFile,
  serializeOutcomesFile,
} from './outcome-file.js';
import type { OutcomeRecord } from './outcome-record.js';
import { createOutcomeStore, type OutcomeBackend, type OutcomeStore } from './outcome-store.js';

const byIssue = (file: OutcomesFile): OutcomeRecord[] =>
  Object.values(file.issues).sort((a, b) => a.issue - b.issue);

/** One step on the whole file: the record's new value goes in under its key. */
function step<T>(
  state: OutcomesFile,
  issue: number,
  fn: (current: OutcomeRecord | undefined) => { result: T; next?: OutcomeRecord },
): { result: T; next?: OutcomesFile } {
  const tx = fn(state.issues[issue] ? structuredClone(state.issues[issue]) : undefined);
  if (!tx.next) return { result: tx.result };
  return { result: tx.result, next: { ...state, issues: { ...state.issues, [issue]: tx.next } } };
}

/**
 * `outcomes.json` in the state directory, under the claims' discipline: every update takes the
 * file's own lock (`outcomes.json.lock`), reads and validates the file, and replaces it (temp file,
 * fsync, rename) only after checking that the lock is still its own. A corrupt file is an error
 * naming it and the fix, never reset.
 */
export function createFileOutcomeBackend(file: string, lockOptions: FileLockOptions = {}): OutcomeBackend {
  const lock = createFileLock(file, { ...lockOptions, prepareDir: () => ensureStateDir(dirname(file)) });
  return {
    update: (issue, fn) =>
      withStateAccess({ path: file, action: 'write' }, () =>
        lock.withLock(async (held) => {
          const tx = step(await readOutcomesFile(file), issue, fn);
          if (tx.next) {
            await writeFileDurably(file, serializeOutcomesFile(tx.next), {
              beforeRename: () => held.assertHeld(),
            });
          }
          return tx.result;
        }),
      ),
    get: async (issue) => (await readOutcomesFile(file)).issues[issue],
    list: async () => byIssue(await readOutcomesFile(file)),
    close: async () => undefined,
  };
}

/** Records in this process only, for tests and `--dry-run`; updates run one after another. */
export function createMemoryOutcomeBackend(initial: OutcomesFile = emptyOutcomesFile()): OutcomeBackend {
  let state = structuredClone(initial);
  const serial = createSerialQueue();
  return {
    update: (issue, fn) =>
      serial(async () => {
        const tx = step(state, issue, fn);
        if (tx.next) state = structuredClone(tx.next);
        return tx.result;
      }),
    get: async (issue) => structuredClone(state.issues[issue]),
    list: async () => structuredClone(byIssue(state)),
    close: async () => undefined,
  };
}

export function createFileOutcomeStore(options: { file: string; lock?: FileLockOptions }): OutcomeStore {
  return createOutcomeStore(createFileOutcomeBackend(options.file, options.lock));
}

export function createMemoryOutcomeStore(initial?: OutcomesFile): OutcomeStore {
  return createOutcomeStore(createMemoryOutcomeBackend(initial));
}
