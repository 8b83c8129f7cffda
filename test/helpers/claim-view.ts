import type { ClaimView } from '../../src/claims/claim-store.js';

/** A claim record as the store shows it: one attempt, no lease, no history, unless overridden. */
export function claimView(overrides: Partial<ClaimView> = {}): ClaimView {
  return {
    issue: 1,
    lease: null,
    failure_count: 0,
    last_failure_at: null,
    failure_reasons: [],
    attempts: 1,
    last_outcome: null,
    interrupted_at: null,
    partial_context: null,
    hint: null,
    needs_human: false,
    ...overrides,
  };
}
