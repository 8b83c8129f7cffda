import type { Lease } from '../../src/claims/claim-store.js';
import { createClaimStore } from '../../src/claims/create-claim-store.js';
import { createMemoryBackend } from '../../src/claims/memory-claim-store.js';
import { CONTRACT_MAX_FAILURES, describeClaimStoreContract, planterFor } from './claim-store-contract.js';

describeClaimStoreContract('memory', async (clock, log) => {
  const backend = createMemoryBackend();
  return {
    store: createClaimStore(backend, { clock, log, maxFailures: CONTRACT_MAX_FAILURES }),
    plantLease: planterFor(backend),
    persistedLeases: async () =>
      Object.values((await backend.read()).issues).flatMap((r) => (r.lease ? [r.lease as Lease] : [])),
  };
});
