import { describe, expect, it } from 'vitest';
import { recordWork } from '../../src/scheduler/attempts-record.js';
import { combineAttempts } from '../../src/scheduler/combine-attempts.js';
import type { ItemTracker } from '../../src/scheduler/work-source.js';
import type { SessionReport } from '../../src/session/session-report.js';

const report = (outcome: SessionReport['outcome'], costUsd: number, extra: Partial<SessionReport> = {}) =>
  ({
    issue: 7,
    attempt: 2,
    outcome,
    reason: outcome,
    filesChanged: ['greet.js'],
    verifyRuns: 1,
    model: 'm',
    models: ['m'],
    modelCalls: 2,
    toolCalls: 3,
    tokens: 100,
    costUsd,
    durationMs: 10,
    productivity: { score: 1 },
    partialContext: '',
    ...extra,
  }) as SessionReport;

const claim = { issue: 7, attempt: 2, n: 3, durationMs: 99, interrupted: false };

describe("a best-of-N claim's combined report", () => {
  it("is the winner's, with every attempt's and the judge's cost; the other delivered ones are not_chosen", () => {
    const verdict = { winner: 2, why: 'the judge’s pick', costUsd: 0.01, modelCalls: 1, model: 'j' };
    const { report: combined, attempts } = combineAttempts(
      [
        { k: 1, report: report('verify_failed', 0.5) },
        {
          k: 2,
          report: report('resolved', 0.25, { commit: 'abc', pr: { number: 3, url: 'u', created: true } }),
        },
        { k: 3, report: report('resolved', 0.75, { commit: '' }) },
      ],
      verdict,
      claim,
    );
    expect(combined).toMatchObject({ outcome: 'resolved', commit: 'abc', modelCalls: 7, durationMs: 99 });
    expect(combined.costUsd).toBeCloseTo(1.51, 10);
    expect(combined.reason).toBe('resolved; chosen from 3 attempts: the judge’s pick');
    expect(combined.models).toEqual(['m', 'j']);
    expect(attempts.map((a) => [a.k, a.report.outcome])).toEqual([
      [1, 'verify_failed'],
      [2, 'resolved'],
      [3, 'not_chosen'],
    ]);
    expect(attempts[2]?.report.commit).toBeUndefined();
  });

  it('none verified: the best failure (verify_failed over no_changes), nothing delivered', () => {
    const { report: combined } = combineAttempts(
      [
        { k: 1, report: report('no_changes', 0.1) },
        { k: 2, report: report('verify_failed', 0.2) },
      ],
      { why: 'no attempt passed verify', costUsd: 0, modelCalls: 0 },
      claim,
    );
    expect(combined.outcome).toBe('verify_failed');
    expect(combined.costUsd).toBeCloseTo(0.3, 10);
    expect(combined.reason).toContain('best of 3 attempts (2 ran): no attempt passed verify');
  });

  it('an interrupted run: the claim is interrupted, not charged as a failure', () => {
    const { report: combined } = combineAttempts(
      [
        { k: 1, report: report('verify_failed', 0.1) },
        { k: 2, report: report('interrupted', 0.2) },
      ],
      { why: 'no attempt passed verify', costUsd: 0, modelCalls: 0 },
      { ...claim, interrupted: true },
    );
    expect(combined.outcome).toBe('interrupted');
  });

  it('is recorded attempt by attempt, the judge as its own entry, and an attempts ledger event', async () => {
    const ended: string[] = [];
    const judged: number[] = [];
    const tracker = {
      sessionEnded: async (r: SessionReport) => void ended.push(r.outcome),
      judged: async (call: { costUsd: number }) => void judged.push(call.costUsd),
    } as unknown as ItemTracker;
    const events: Array<[string, Record<string, unknown>]> = [];
    const ledger = {
      append: async (type: string, fields: Record<string, unknown>) => void events.push([type, fields]),
    };
    const verdict = { winner: 1, why: 'the judge’s pick', costUsd: 0.02, modelCalls: 1, model: 'j' };
    const ran = combineAttempts(
      [
        { k: 1, report: report('resolved', 0.3) },
        { k: 2, report: report('resolved', 0.4) },
      ],
      verdict,
      claim,
    );
    await recordWork({ ledger } as never, tracker, { ...ran, n: 3 }, undefined);
    expect(ended).toEqual(['resolved', 'not_chosen']);
    expect(judged).toEqual([0.02]);
    expect(events).toEqual([
      [
        'attempts',
        {
          issue: 7,
          n: 3,
          attempts: [
            { attempt: 1, outcome: 'resolved', costUsd: 0.3 },
            { attempt: 2, outcome: 'not_chosen', costUsd: 0.4 },
          ],
          winner: 1,
          why: 'the judge’s pick',
          judgeUsd: 0.02,
          costUsd: ran.report.costUsd,
        },
      ],
    ]);
  });
});
