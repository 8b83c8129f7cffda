import { describe, expect, it } from 'vitest';
import { spentUsd } from '../../src/claims/outcome-record.js';
import { outcomeReport } from '../../src/run/outcome-report.js';
import { DAY, NOW, pull, record, session } from './outcome-fixtures.js';

const window30 = { since: '30d', sinceMs: 30 * DAY, now: NOW };

/**
 * `issueloop report` over an issue worked best-of-N (issue 32 item 1): a first attempt failed verify,
 * the next claim ran three attempts and a judge (kept as an `attempt` entry `judged`), and the chosen
 * attempt's PR merged. Every attempt is a session of the issue, and the judge's call is in its dollars.
 */
function bestOfRecord() {
  return record(3, {
    sessions: [
      session('2025-06-10T00:00:00Z', 0.5, { outcome: 'verify_failed' }),
      session('2025-06-11T00:00:00Z', 0.25, { outcome: 'verify_failed' }),
      session('2025-06-11T00:00:01Z', 0.25, { outcome: 'resolved' }),
      session('2025-06-11T00:00:02Z', 0.25, { outcome: 'not_chosen' }),
      session('2025-06-11T00:00:03Z', 0.125, { outcome: 'judged', models: ['claude-haiku-4-5'] }),
    ],
    pull: pull(3, 'merged', '2025-06-11T00:00:04Z', '2025-06-12T00:00:00Z'),
  });
}

describe('report: a best-of-N issue (issue 32 item 1)', () => {
  it("counts every attempt's dollars and the judge's in the spend and the dollars per merged PR", () => {
    const { total } = outcomeReport([bestOfRecord()], window30);
    const spent = 0.5 + 0.25 * 3 + 0.125;
    expect(total.usd_total).toBe(spent);
    expect(total.usd_per_merged_pr).toBe(spent);
    expect(spentUsd(bestOfRecord())).toBe(spent);
    expect(total.prs).toEqual({ opened: 1, merged: 1, closed_unmerged: 0, open: 0 });
  });

  it('counts attempts and the judge as attempts, not as follow-ups of the merged PR', () => {
    const { total } = outcomeReport([bestOfRecord()], window30);
    expect(total.issues_attempted).toBe(1);
    expect(total.followups_per_merged_pr).toBe(0);
  });

  it("by model: the judge's dollars go to the judge's model, so the groups add up to the total", () => {
    const { groups, total } = outcomeReport([bestOfRecord()], { ...window30, by: 'model' });
    expect(groups?.map((g) => [g.key, g.usd_total])).toEqual([
      ['claude-haiku-4-5', 0.125],
      ['claude-opus-4-1', 1.25],
    ]);
    expect((groups ?? []).reduce((sum, g) => sum + g.usd_total, 0)).toBe(total.usd_total);
  });
});
