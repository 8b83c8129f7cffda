import { describe, expect, it } from 'vitest';
import type { ClaimStore } from '../../src/claims/claim-store.js';
import { ClaimStoreUnreachableError } from '../../src/claims/redis-claim-store.js';
import { createMemorySpendLedger } from '../../src/claims/spend-ledger.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { member, roundsFixture } from './rounds-fixture.js';

const { setup } = roundsFixture();

const unreachable = () =>
  new ClaimStoreUnreachableError('redis://127.0.0.1:6390', 'claim', new Error('connect ECONNREFUSED'));

describe('a session’s reservation when its claim fails', () => {
  it('regression: a reservation taken before a claim that throws is given back at once, not held until it lapses', async () => {
    const { gh, ctx, claims, clock } = await setup({ empty_rounds: 1, budget: { daily_usd: 100 } });
    const number = gh.emulator.addIssue(member('Fix the greeting typo'));
    const spend = createMemorySpendLedger({ caps: { daily_usd: 100 }, clock });
    let failures = 1;
    const flaky: ClaimStore = {
      ...claims,
      claim: (...args) => (failures-- > 0 ? Promise.reject(unreachable()) : claims.claim(...args)),
    };

    const summary = await runRounds({ ...ctx, claims: flaky, spend }, { owner: 'host:1' });

    // The first claim failed (an outage round), the next one worked the issue.
    expect(failures).toBeLessThan(0);
    expect(summary.reports.map((r) => [r.issue, r.outcome])).toEqual([[number, 'resolved']]);
    const [day] = await spend.windows();
    // Only the session that ran is charged; the failed claim's reservation is not still held.
    expect(day?.spent_usd).toBeCloseTo(summary.costUsd, 6);
    expect(summary.costUsd).toBeGreaterThan(0);
    expect(day?.reserved_usd).toBe(0);
  });

  it('regression: a claim that throws an error of its own gives the reservation back before the run fails', async () => {
    const { gh, ctx, claims, clock } = await setup({ empty_rounds: 1, budget: { daily_usd: 100 } });
    gh.emulator.addIssue(member('Fix the greeting typo'));
    const spend = createMemorySpendLedger({ caps: { daily_usd: 100 }, clock });
    const broken: ClaimStore = {
      ...claims,
      claim: () => Promise.reject(new Error('claims file is corrupt')),
    };

    await expect(runRounds({ ...ctx, claims: broken, spend }, { owner: 'host:1' })).rejects.toThrow(
      'claims file is corrupt',
    );
    const [day] = await spend.windows();
    expect(day).toMatchObject({ kind: 'day', spent_usd: 0, reserved_usd: 0 });
  });
});
