import type { ClaimStore } from './claim-store.js';
import { type ClaimsFile, emptyClaimsFile } from './claims-schema.js';
import { type ClaimStoreOptions, type ClaimsBackend, createClaimStore } from './create-claim-store.js';
import { createMemoryStateBackend } from './state-backend.js';

/** State in this process only, for tests and `--dry-run`. */
export function createMemoryBackend(initial: ClaimsFile = emptyClaimsFile()): ClaimsBackend {
  return createMemoryStateBackend(initial);
}

export function createMemoryClaimStore(options: ClaimStoreOptions, initial?: ClaimsFile): ClaimStore {
  return createClaimStore(createMemoryBackend(initial), options);
}
