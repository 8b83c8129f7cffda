import { describe, expect, it } from 'vitest';
import { outcomeReport } from '../../src/run/outcome-report.js';
import { NO_MERGED_PR, outcomesLine, renderOutcomeReport } from '../../src/run/outcome-text.js';
import { DAY, fleet, NOW, pull, record, session } from './outcome-fixtures.js';

const window30 = { since: '30d', sinceMs: 30 * DAY, now: NOW };

describe('the outcome figures over a window', () => {
  it('counts, rates and dollars of the fleet, computed by hand from its sessions', () => {
    const { total, from, to } = outcomeReport(fleet(), window30);
    expect(from).toBe('2025-05-31T00:00:00.000Z');
    expect(to).toBe('2025-06-30T00:00:00.000Z');
    // #1, #2, #3, #4, #6 (its CI follow-up and merge), #7; not #5 (all in April).
    expect(total.issues_attempted).toBe(6);
    expect(total.prs).toEqual({ opened: 5, merged: 3, closed_unmerged: 1, open: 1 });
    expect(total.acceptance_rate).toBe(3 / (3 + 1));
    expect(total.zero_touch).toBe(1); // #1; #2 had a maintainer's commit, #6 a change request
    expect(total.zero_touch_rate).toBe(1 / 3);
    // #6's first attempt (4) ran before the window: only its follow-up (0.125) counts.
    const spent = 1.25 + 0.5 + 2 + 0.75 + 0.25 + 0.125 + 0.5;
    expect(total.usd_total).toBe(spent);
    expect(total.usd_per_merged_pr).toBeCloseTo(spent / 3, 6);
    expect(total.usd_on_closed_prs).toBe(0.75);
    // Claim to merge: #1 2 days, #2 4 days, #6 14 days.
    expect(total.median_ms_to_merge).toBe(4 * DAY);
    // #1's review follow-up and #6's CI follow-up, over three merged PRs.
    expect(total.followups_per_merged_pr).toBe(2 / 3);
  });

  it('counts an issue whose only activity in the window is its merge, without the spend before it', () => {
    const late = record(8, {
      first_claimed_at: '2025-05-25T00:00:00Z',
      sessions: [session('2025-05-25T01:00:00Z', 1)],
      pull: pull(8, 'merged', '2025-05-25T01:00:00Z', '2025-06-01T00:00:00Z'),
    });
    const stale = record(9, { sessions: [session('2025-05-01T00:00:00Z', 3)] });
    const { total } = outcomeReport([late, stale], window30);
    expect(total.issues_attempted).toBe(1);
    expect(total.prs.merged).toBe(1);
    expect(total.usd_total).toBe(0);
    expect(total.usd_per_merged_pr).toBe(0);
    expect(total.median_ms_to_merge).toBe(7 * DAY);
  });

  it('bug: a PR closed unmerged whose issue was worked again vanished from the report (acceptance overstated, its dollars not on closed PRs)', () => {
    const first = pull(8, 'closed', '2025-06-02T01:00:00Z', '2025-06-03T00:00:00Z');
    const reworked = record(8, {
      sessions: [
        session('2025-06-02T01:00:00Z', 0.5),
        session('2025-06-02T05:00:00Z', 0.25, { kind: 'ci_followup' }),
        session('2025-06-04T01:00:00Z', 1),
      ],
      earlier_pulls: [first],
      pull: { ...pull(8, 'merged', '2025-06-04T01:00:00Z', '2025-06-05T00:00:00Z'), number: 120 },
    });
    const { total } = outcomeReport([reworked], window30);
    expect(total.issues_attempted).toBe(1);
    expect(total.prs).toEqual({ opened: 2, merged: 1, closed_unmerged: 1, open: 0 });
    expect(total.acceptance_rate).toBe(0.5);
    // The attempt and the follow-up on the closed PR; the second attempt made the merged one.
    expect(total.usd_on_closed_prs).toBe(0.75);
    expect(total.usd_total).toBe(1.75);
    expect(total.usd_per_merged_pr).toBe(1.75);
    // Its only activity in the window being the closed PR's closing still counts the issue.
    const closedOnly = record(9, {
      sessions: [session('2025-05-01T00:00:00Z', 2)],
      earlier_pulls: [pull(9, 'closed', '2025-05-01T00:00:00Z', '2025-06-01T00:00:00Z')],
      pull: { ...pull(9, 'open', '2025-05-02T00:00:00Z'), number: 130 },
    });
    expect(outcomeReport([closedOnly], window30).total.prs).toEqual({
      opened: 2,
      merged: 0,
      closed_unmerged: 1,
      open: 1,
    });
  });

  it('by label: an issue with two labels counts in both groups; one without in (no label)', () => {
    const { groups, total } = outcomeReport(fleet(), { ...window30, by: 'label' });
    const byKey = new Map(groups?.map((g) => [g.key, g]));
    expect([...byKey.keys()]).toEqual(['(no label)', 'bug', 'docs']);
    expect(byKey.get('bug')?.issues_attempted).toBe(3); // #1, #2, #6
    expect(byKey.get('bug')?.usd_total).toBe(1.25 + 0.5 + 2 + 0.125);
    expect(byKey.get('docs')?.prs).toEqual({ opened: 2, merged: 1, closed_unmerged: 1, open: 0 });
    expect(byKey.get('docs')?.acceptance_rate).toBe(0.5);
    expect(byKey.get('docs')?.usd_total).toBe(2 + 0.75);
    expect(byKey.get('(no label)')?.usd_per_merged_pr).toBeNull();
    // #2 is in bug and docs: the groups' issues add up to one more than the total.
    const sum = (groups ?? []).reduce((n, g) => n + g.issues_attempted, 0);
    expect(sum).toBe(total.issues_attempted + 1);
  });

  it("by model: a session's dollars all go to its first model, so the groups add up to the total", () => {
    const { groups, total } = outcomeReport(fleet(), { ...window30, by: 'model' });
    const byKey = new Map(groups?.map((g) => [g.key, g]));
    expect([...byKey.keys()]).toEqual(['claude-haiku-4-5', 'claude-opus-4-1', 'claude-sonnet-4-5']);
    expect(byKey.get('claude-opus-4-1')?.usd_total).toBe(1.25 + 2 + 0.25 + 0.5);
    expect(byKey.get('claude-opus-4-1')?.prs.merged).toBe(2);
    // #3 failed over from sonnet to opus: its 0.75 is sonnet's.
    expect(byKey.get('claude-sonnet-4-5')?.usd_total).toBe(0.5 + 0.75);
    expect(byKey.get('claude-sonnet-4-5')?.followups_per_merged_pr).toBe(1);
    expect(byKey.get('claude-haiku-4-5')?.usd_total).toBe(0.125);
    const dollars = (groups ?? []).reduce((n, g) => n + g.usd_total, 0);
    expect(dollars).toBe(total.usd_total);
  });

  it('by engine: native and claude-code sessions apart', () => {
    const { groups } = outcomeReport(fleet(), { ...window30, by: 'engine' });
    expect(groups?.map((g) => [g.key, g.usd_total, g.prs.merged])).toEqual([
      ['claude-code', 2, 1],
      ['native', 1.25 + 0.5 + 0.75 + 0.25 + 0.125 + 0.5, 2],
    ]);
  });

  it('no merged PR: dollars per merged PR and the rates are null, and the text says so', () => {
    const open = record(4, {
      sessions: [session('2025-06-25T01:00:00Z', 0.25)],
      pull: pull(4, 'open', '2025-06-25T01:00:00Z'),
    });
    const report = outcomeReport([open], window30);
    expect(report.total.usd_total).toBe(0.25);
    expect(report.total.usd_per_merged_pr).toBeNull();
    expect(report.total.acceptance_rate).toBeNull();
    expect(report.total.median_ms_to_merge).toBeNull();
    expect(renderOutcomeReport(report)).toContain(`dollars per merged PR     ${NO_MERGED_PR}`);
    expect(outcomesLine(report)).toBe(`outcomes (30d): 0 merged of 1 opened, ${NO_MERGED_PR}`);
  });

  it('renders the totals and a row per group as text', () => {
    const text = renderOutcomeReport(outcomeReport(fleet(), { ...window30, by: 'label' }));
    expect(text).toContain('PRs opened                5 (merged 3, closed unmerged 1, still open 1)');
    expect(text).toContain('acceptance rate           75.0% (3 merged of 4 decided)');
    expect(text).toContain('dollars per merged PR     $1.79');
    expect(text).toContain('median time to merge      96h 00m');
    expect(text).toMatch(/by label \(an issue with two labels counts in both\):/);
    expect(text).toMatch(/ {2}docs\s+2\s+2\s+1\s+1\s+0\s+50\.0%\s+0\.0%\s+\$2\.75\s+\$2\.75/);
    expect(outcomesLine(outcomeReport(fleet(), window30))).toBe(
      'outcomes (30d): 3 merged of 5 opened, $1.79 per merged PR',
    );
  });
});
