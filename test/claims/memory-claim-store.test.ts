import type { Lease } from '../../src/claims/claim-store.js';
import { createClaimStore } from '../../src/claims/create-claim-store.js';
import { createMemoryBackend } from '../../src/claims/memory-claim-store.js';
import { CONTRACT_MAX_FAILURES, describeClaimStoreContract } from './claim-store-contract.js';

describeClaimStoreContract('memory', async (clock) => {
  const backend = createMemoryBackend();
  return {
    store: createClaimStore(backend, { clock, maxFailures: CONTRACT_MAX_FAILURES }),
    persistedLeases: async () =>
      Object.values((await backend.read()).issues).flatMap((r) => (r.lease ? [r.lease as Lease] : [])),
  };
});
