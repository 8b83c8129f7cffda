import { type ClaimStoreSettings, openOutcomeStore } from '../claims/open-claim-store.js';
import type { OutcomeRecord } from '../claims/outcome-record.js';

/**
 * The issues' outcome records for `report`, `status` and the action's summary: from the store the
 * configuration names (`outcomes.json` beside the claims, or the same Redis), opened for the read
 * and closed after it. A corrupt file is the store's error, naming the file and the fix.
 */
export async function readOutcomes(settings: ClaimStoreSettings, cwd: string): Promise<OutcomeRecord[]> {
  const { store } = openOutcomeStore(settings, { cwd });
  try {
    return await store.list();
  } finally {
    await store.close();
  }
}
