import { describe, expect, it } from 'vitest';
import { DEFAULT_SINCE, reportWindow, runReport } from '../../src/cli/commands/report.js';
import { UsageError } from '../../src/core/errors.js';
import { DAY, fleet, NOW } from '../run/outcome-fixtures.js';

describe('issueloop report: its flags', () => {
  it('--since defaults to 30d and takes any duration; --by one of label, engine, model', () => {
    expect(reportWindow({})).toEqual({ since: DEFAULT_SINCE, sinceMs: 30 * DAY });
    expect(reportWindow({ since: '12h', by: 'model' })).toEqual({
      since: '12h',
      sinceMs: DAY / 2,
      by: 'model',
    });
  });

  it('a window of nothing, or a group it does not know, is a usage error', () => {
    expect(() => reportWindow({ since: '0d' })).toThrow(UsageError);
    expect(() => reportWindow({ since: '30 days' })).toThrow('--since 30 days: not a duration');
    expect(() => reportWindow({ by: 'labels' })).toThrow('--by labels: group by label, engine, model');
  });

  it('regression: a window longer than the epoch (--since 1000000000d) reports everything instead of failing on an invalid date', () => {
    const all = runReport(fleet(), { since: '1000000000d' }, NOW).report;
    expect(all.from).toBe('1970-01-01T00:00:00.000Z');
    expect(all.total).toEqual(runReport(fleet(), { since: `${Math.ceil(NOW / DAY)}d` }, NOW).report.total);
    expect(all.total.issues_attempted).toBeGreaterThan(0);
  });

  it('gives the report and its text together', () => {
    const { report, text } = runReport(fleet(), { by: 'engine' }, NOW);
    expect(report.groups?.map((g) => g.key)).toEqual(['claude-code', 'native']);
    expect(text).toContain('by engine:');
  });
});
