import { createSerialQueue } from '../core/serial-queue.js';
import type { ClaimStore } from './claim-store.js';
import { type ClaimsFile, emptyClaimsFile } from './claims-schema.js';
import { type ClaimStoreOptions, type ClaimsBackend, createClaimStore } from './create-claim-store.js';

/**
 * State in this process only, for tests and `--dry-run`. Transactions run one after another, like the
 * file store's, so an `await` inside one cannot interleave with another.
 */
export function createMemoryBackend(initial: ClaimsFile = emptyClaimsFile()): ClaimsBackend {
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

export function createMemoryClaimStore(options: ClaimStoreOptions, initial?: ClaimsFile): ClaimStore {
  return createClaimStore(createMemoryBackend(initial), options);
}
