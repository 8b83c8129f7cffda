import { describe, expect, it } from 'vitest';
import { createAttemptGate } from '../../src/scheduler/attempt-gate.js';
import { attemptsUsd } from '../../src/scheduler/spend-gate.js';
import { attemptsFor } from '../../src/sources/issues/issue-source.js';

const gate = (options: { slots: number; maxUsd?: number }, controller = new AbortController()) =>
  createAttemptGate({ sessionMaxUsd: 5, signal: controller.signal, ...options });

/** Whether `promise` has settled once pending callbacks ran. */
async function settledNow<T>(promise: Promise<T>): Promise<{ value?: T; pending: boolean }> {
  let state: { value?: T; pending: boolean } = { pending: true };
  void promise.then((value) => {
    state = { value, pending: false };
  });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return state;
}

describe("a best-of-N claim's slots and attempts.max_usd", () => {
  it('runs as many attempts side by side as it holds slots; the next starts when one frees', async () => {
    const g = gate({ slots: 2 });
    expect(await g.start()).toBe(5);
    expect(await g.start()).toBe(5);
    const third = g.start();
    expect((await settledNow(third)).pending).toBe(true);
    g.settle(5, 1.5);
    g.freeSlot();
    expect(await third).toBe(5);
    expect(g.spent).toBe(1.5);
  });

  it("lowers an attempt's session cap to what attempts.max_usd leaves", async () => {
    const g = gate({ slots: 3, maxUsd: 7 });
    expect(await g.start()).toBe(5);
    expect(await g.start()).toBe(2);
    // Nothing left while both hold their caps: the third waits, and gets what the first did not spend.
    const third = g.start();
    expect((await settledNow(third)).pending).toBe(true);
    g.settle(5, 4);
    g.freeSlot();
    expect(await third).toBe(1);
  });

  it('attempts.max_usd spent with nothing running: the rest do not start', async () => {
    const g = gate({ slots: 1, maxUsd: 3 });
    expect(await g.start()).toBe(3);
    const second = g.start();
    g.settle(3, 3.2);
    g.freeSlot();
    expect(await second).toBeUndefined();
    expect(g.spent).toBe(3.2);
  });

  it('an interrupt stops the attempts that wait', async () => {
    const controller = new AbortController();
    const g = gate({ slots: 1 }, controller);
    expect(await g.start()).toBe(5);
    const second = g.start();
    controller.abort();
    expect(await second).toBeUndefined();
  });

  it('the claim reserves every attempt, or attempts.max_usd when that is less', () => {
    const config = (max?: number) => ({
      session: { max_usd: 5 } as never,
      attempts: { n: 3, ...(max !== undefined ? { max_usd: max } : {}) },
    });
    expect(attemptsUsd(config(), 1)).toBe(5);
    expect(attemptsUsd(config(), 3)).toBe(15);
    expect(attemptsUsd(config(8), 3)).toBe(8);
    expect(attemptsUsd(config(100), 3)).toBe(15);
  });
});

describe('which claims get best-of-N (the issue source)', () => {
  const issue = (labels: string[] = []) => ({ number: 4, labels });
  it('after verify_failed or no_changes, or with the label; never for a follow-up, nor with n: 1', () => {
    const none = new Set<number>();
    expect(attemptsFor(issue(), { last_outcome: 'verify_failed' }, 3, none)).toBe(3);
    expect(attemptsFor(issue(), { last_outcome: 'no_changes' }, 3, none)).toBe(3);
    expect(attemptsFor(issue(['issueloop:Best-of-N']), undefined, 5, none)).toBe(5);
    expect(attemptsFor(issue(), { last_outcome: 'budget_exceeded' }, 3, none)).toBe(1);
    expect(attemptsFor(issue(), undefined, 3, none)).toBe(1);
    expect(
      attemptsFor(issue(['issueloop:best-of-N']), { last_outcome: 'verify_failed' }, 3, new Set([4])),
    ).toBe(1);
    expect(attemptsFor(issue(['issueloop:best-of-N']), { last_outcome: 'verify_failed' }, 1, none)).toBe(1);
  });

  it('regression: an issue that needs a plan writes one plan, not N; its approved implementation gets N', () => {
    const none = new Set<number>();
    const both = issue(['issueloop:best-of-N', 'issueloop:plan']);
    expect(attemptsFor(both, undefined, 3, none, true)).toBe(1);
    expect(attemptsFor(both, { last_outcome: 'plan_revise' }, 3, none, true)).toBe(1);
    expect(attemptsFor(both, { last_outcome: 'plan_requested' }, 3, none, true)).toBe(1);
    expect(attemptsFor(both, { last_outcome: 'plan_approved' }, 3, none, true)).toBe(3);
    expect(attemptsFor(issue(['issueloop:plan']), { last_outcome: 'verify_failed' }, 3, none, true)).toBe(3);
    // Without a plan to wait for, the label alone is enough.
    expect(attemptsFor(both, undefined, 3, none, false)).toBe(3);
  });
});
