import { resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Redactor } from '../core/redact.js';
import type { ClaimStore } from './claim-store.js';
import { createFileClaimStore } from './file-claim-store.js';

export const CLAIMS_FILE_NAME = 'claims.json';

export interface OpenClaimStoreOptions {
  /** Config `claims.store`. */
  kind: 'file';
  /** Config `state_dir`, resolved against `cwd`. */
  stateDir: string;
  cwd: string;
  maxFailures: number;
  clock: Pick<Clock, 'now'>;
  redact?: Redactor;
}

export interface OpenedClaimStore {
  store: ClaimStore;
  /** Where the claims live, for messages: a file path today, a URL for a server store. */
  location: string;
  /** The claims file of a file store (reset moves it aside when it is corrupt). */
  file?: string;
}

/** The store the configuration names, ready to use; opening it touches nothing on disk. */
export function openClaimStore(options: OpenClaimStoreOptions): OpenedClaimStore {
  const file = resolve(options.cwd, options.stateDir, CLAIMS_FILE_NAME);
  const store = createFileClaimStore({
    file,
    clock: options.clock,
    maxFailures: options.maxFailures,
    ...(options.redact ? { redact: options.redact } : {}),
  });
  return { store, location: file, file };
}
