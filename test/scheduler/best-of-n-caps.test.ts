import { describe, expect, it } from 'vitest';
import { createMemorySpendLedger } from '../../src/claims/spend-ledger.js';
import { BEST_OF_N_LABEL } from '../../src/github/labels.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { readLedger } from '../../src/session/ledger.js';
import { LONG_LEASE, member, roundsFixture } from './rounds-fixture.js';

const { setup } = roundsFixture();

describe('best-of-N near a shared spend cap', () => {
  it('regression: a cap with room for one attempt but not three runs one, instead of stopping the run', async () => {
    // session.max_usd $2: three attempts reserve $6, and the day has $5 left.
    const { gh, ctx, clock, log } = await setup({
      empty_rounds: 1,
      session: { max_usd: 2 },
      budget: { daily_usd: 5 },
      ...LONG_LEASE,
      attempts: { n: 3 },
    });
    const issue = gh.emulator.addIssue(
      member('Fix the greeting typo', { labels: ['issueloop', BEST_OF_N_LABEL] }),
    );
    const spend = createMemorySpendLedger({ caps: { daily_usd: 5 }, clock });

    const run = await runRounds({ ...ctx, spend }, { owner: 'host:1' });

    expect(run.reports.map((r) => [r.issue, r.outcome])).toEqual([[issue, 'resolved']]);
    expect(run.stop).not.toBe('budget');
    // One session, not three: no attempts event, and the log says why.
    await ctx.ledger.flush();
    const { events } = await readLedger(ctx.ledger.file);
    expect(events.filter((e) => e.type === 'attempts')).toEqual([]);
    expect(events.filter((e) => e.type === 'outcome')).toHaveLength(1);
    expect(log.entries.map((e) => e.msg)).toContainEqual(
      expect.stringContaining(`one attempt instead of 3 for #${issue}`),
    );
    const [day] = await spend.windows();
    expect(day?.reserved_usd).toBe(0);
    expect(day?.spent_usd).toBeGreaterThan(0);
  });

  it('with room for all three, the label gets its three attempts (the anchor)', async () => {
    const { gh, ctx, clock } = await setup({
      empty_rounds: 1,
      session: { max_usd: 2 },
      budget: { daily_usd: 7 },
      ...LONG_LEASE,
      attempts: { n: 3 },
    });
    gh.emulator.addIssue(member('Fix the greeting typo', { labels: ['issueloop', BEST_OF_N_LABEL] }));
    const spend = createMemorySpendLedger({ caps: { daily_usd: 7 }, clock });
    await runRounds({ ...ctx, spend }, { owner: 'host:1' });
    await ctx.ledger.flush();
    const { events } = await readLedger(ctx.ledger.file);
    expect(events.find((e) => e.type === 'attempts')).toMatchObject({ n: 3 });
  });
});
