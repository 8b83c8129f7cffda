import type { FileLockOptions } from './file-lock.js';
import { emptyOutcomesFile, type OutcomesFile, readOutcomesFile } from './outcome-file.js';
import type { OutcomeRecord } from './outcome-record.js';
import { createOutcomeStore, type OutcomeBackend, type OutcomeStore } from './outcome-store.js';
import { createFileStateBackend, createMemoryStateBackend, type StateBackend } from './state-backend.js';

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

/** The outcome store's operations on the whole file's state, one record a transaction. */
function outcomeBackend(state: StateBackend<OutcomesFile>): OutcomeBackend {
  return {
    update: (issue, fn) => state.transact((current) => step(current, issue, fn)),
    get: async (issue) => (await state.read()).issues[issue],
    list: async () => byIssue(await state.read()),
    close: async () => undefined,
  };
}

/**
 * `outcomes.json` in the state directory, under the claims' discipline (state-backend.ts): its own
 * lock (`outcomes.json.lock`), validated on every read, replaced atomically. A corrupt file is an
 * error naming it and the fix, never reset.
 */
export function createFileOutcomeBackend(file: string, lockOptions: FileLockOptions = {}): OutcomeBackend {
  return outcomeBackend(createFileStateBackend(file, { read: readOutcomesFile, lock: lockOptions }));
}

/** Records in this process only, for tests and `--dry-run`; updates run one after another. */
export function createMemoryOutcomeBackend(initial: OutcomesFile = emptyOutcomesFile()): OutcomeBackend {
  return outcomeBackend(createMemoryStateBackend(initial));
}

export function createFileOutcomeStore(options: { file: string; lock?: FileLockOptions }): OutcomeStore {
  return createOutcomeStore(createFileOutcomeBackend(options.file, options.lock));
}

export function createMemoryOutcomeStore(initial?: OutcomesFile): OutcomeStore {
  return createOutcomeStore(createMemoryOutcomeBackend(initial));
}
