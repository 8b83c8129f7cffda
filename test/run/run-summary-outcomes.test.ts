import { describe, expect, it } from 'vitest';
import { renderRunSummary, tally } from '../../src/run/run-summary.js';
import type { Outcome } from '../../src/session/outcome.js';
import type { SessionReport } from '../../src/session/session-report.js';

function report(issue: number, outcome: Outcome): SessionReport {
  return {
    issue,
    attempt: 1,
    outcome,
    reason: outcome,
    filesChanged: [],
    verifyRuns: 0,
    model: 'claude-haiku-4-5',
    modelCalls: 1,
    toolCalls: 0,
    tokens: 0,
    costUsd: 0.01,
    durationMs: 1_000,
    productivity: { score: 0 },
    partialContext: '',
  };
}

describe('the run summary counts the outcomes of issue 32', () => {
  it('regression: a posted plan (plan_review) is counted as a plan, not as a failure', () => {
    const reports = [report(1, 'resolved'), report(2, 'plan_review'), report(3, 'verify_failed')];
    const count = tally(reports);
    expect(count).toMatchObject({ resolved: 1, failed: 1, planned: 1, interrupted: 0 });
    expect([...count.byClass.entries()]).toEqual([['verify_failed', 1]]);

    const text = renderRunSummary(
      { rounds: 2, reports, stop: 'empty_backlog', costUsd: 0.03, skipped: [] },
      undefined,
      '/state/ledger.jsonl',
    );
    expect(text).toContain('resolved 1, failed 1 (verify_failed 1), plans posted 1, cost');
  });

  it('a run with no plan says nothing of plans', () => {
    const text = renderRunSummary(
      { rounds: 1, reports: [report(1, 'resolved')], stop: 'empty_backlog', costUsd: 0.01, skipped: [] },
      undefined,
      '/state/ledger.jsonl',
    );
    expect(text).toContain('resolved 1, failed 0, cost');
    expect(text).not.toContain('plans posted');
  });
});
