// An interrupt inside a round counts that round in the summary, as it did before runRounds was split
// into steps (review of the layout change: the split returned 0 here).
import { describe, expect, it } from 'vitest';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

function ctxWith(hooks: {
  list?: (c: AbortController) => Promise<unknown[]>;
  claimsList?: (c: AbortController) => Promise<unknown[]>;
  claim?: (c: AbortController) => Promise<unknown>;
}) {
  const controller = new AbortController();
  const ledgerEvents: Array<[string, Record<string, unknown>]> = [];
  const ctx = {
    config: { empty_rounds: 2, workers: 1, claims: { ttl: 60_000 }, poll_interval: 1000 },
    source: {
      list: () => (hooks.list ? hooks.list(controller) : Promise.resolve([{ number: 1, title: 't' }])),
      plan: async (items: Array<{ number: number; title: string }>, claims: unknown) => ({
        candidates: items,
        skipped: [],
        claims,
        claimable: () => true,
      }),
      afterRound: async () => undefined,
      settle: async () => undefined,
    },
    claims: {
      list: () => (hooks.claimsList ? hooks.claimsList(controller) : Promise.resolve([])),
      claim: () => (hooks.claim ? hooks.claim(controller) : Promise.resolve({ ok: false, heldBy: 'x' })),
    },
    deps: { clock: new FakeClock(), random: () => 0.5, log: createMemoryLog() },
    ledger: { append: async (type: string, f: Record<string, unknown>) => void ledgerEvents.push([type, f]) },
    signal: controller.signal,
    redact: (s: string) => s,
  };
  return ctx as never;
}

describe('regression: a run interrupted inside its first round reports 1 round', () => {
  it('interrupted while listing the backlog', async () => {
    const ctx = ctxWith({
      list: async (c) => {
        c.abort();
        throw new Error('aborted');
      },
    });
    const summary = await runRounds(ctx, { owner: 'h:1' });
    expect(summary.stop).toBe('interrupted');
    expect(summary.rounds).toBe(1);
  });
  it('interrupted while planning (claims.list)', async () => {
    const ctx = ctxWith({
      claimsList: async (c) => {
        c.abort();
        throw new Error('aborted');
      },
    });
    const summary = await runRounds(ctx, { owner: 'h:1' });
    expect(summary.stop).toBe('interrupted');
    expect(summary.rounds).toBe(1);
  });
  it('interrupted at the first claim (nothing claimed)', async () => {
    const ctx = ctxWith({
      claim: async (c) => {
        c.abort();
        throw new Error('aborted');
      },
    });
    const summary = await runRounds(ctx, { owner: 'h:1' });
    expect(summary.stop).toBe('interrupted');
    expect(summary.rounds).toBe(1);
  });
});
