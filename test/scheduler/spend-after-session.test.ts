import { describe, expect, it } from 'vitest';
import type { ClaimStore } from '../../src/claims/claim-store.js';
import { createMemoryOutcomeStore } from '../../src/claims/file-outcome-store.js';
import { createMemorySpendLedger } from '../../src/claims/spend-ledger.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { member, roundsFixture } from './rounds-fixture.js';

const { setup } = roundsFixture();

describe('a session whose work afterwards fails', () => {
  it('regression (failures after the session understate its cost): its actual cost is charged and its outcome entry kept', async () => {
    const { gh, ctx, claims, clock, newSource } = await setup({
      empty_rounds: 1,
      budget: { daily_usd: 100 },
    });
    const number = gh.emulator.addIssue(member('Fix the greeting typo'));
    const spend = createMemorySpendLedger({ caps: { daily_usd: 100 }, clock });
    const outcomes = createMemoryOutcomeStore();
    const source = newSource({ outcomes });
    const broken: ClaimStore = {
      ...claims,
      release: () => Promise.reject(new Error('claims file is corrupt')),
    };

    await expect(runRounds({ ...ctx, source, claims: broken, spend }, { owner: 'host:1' })).rejects.toThrow(
      'claims file is corrupt',
    );

    const record = await outcomes.get(number);
    expect(record?.sessions).toHaveLength(1);
    const entry = record?.sessions[0];
    expect(entry).toMatchObject({ kind: 'attempt', outcome: 'resolved' });
    expect(entry?.usd).toBeGreaterThan(0);
    const [day] = await spend.windows();
    // The session's own cost, not the whole reservation (session.max_usd), and nothing still held.
    expect(entry?.usd).toBeLessThan(ctx.config.session.max_usd);
    expect(day?.spent_usd).toBeCloseTo(entry?.usd ?? Number.NaN, 6);
    expect(day?.reserved_usd).toBe(0);
  });
});
