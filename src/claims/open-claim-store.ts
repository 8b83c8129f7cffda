import { resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Redactor } from '../core/redact.js';
import type { ClaimStore } from './claim-store.js';
import { createFileClaimStore } from './file-claim-store.js';

const CLAIMS_FILE_NAME = 'claims.json';

/** The settings a store is opened from: the shape of the validated config, declared here structurally. */
export interface ClaimStoreSettings {
  claims: { store: 'file'; max_failures: number };
  /** Resolved against `cwd`. */
  state_dir: string;
}

export interface OpenedClaimStore {
  store: ClaimStore;
  /** Where the claims live, for messages: a file path today, a URL for a server store. */
  location: string;
  /** The claims file of a file store (reset moves it aside when it is corrupt). */
  file?: string;
}

/** The store the configuration names, ready to use; opening it touches nothing on disk. */
export function openClaimStore(
  settings: ClaimStoreSettings,
  options: { cwd: string; clock: Pick<Clock, 'now'>; redact?: Redactor },
): OpenedClaimStore {
  const file = resolve(options.cwd, settings.state_dir, CLAIMS_FILE_NAME);
  const store = createFileClaimStore({
    file,
    clock: options.clock,
    maxFailures: settings.claims.max_failures,
    ...(options.redact ? { redact: options.redact } : {}),
  });
  return { store, location: file, file };
}
