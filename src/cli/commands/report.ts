import type { OutcomeRecord } from '../../claims/outcome-record.js';
import { parseDuration } from '../../config/duration.js';
import { UsageError } from '../../core/errors.js';
import { GROUP_BY, type GroupBy, type OutcomeReport, outcomeReport } from '../../run/outcome-report.js';
import { renderOutcomeReport } from '../../run/outcome-text.js';

export interface ReportFlags {
  since?: string;
  by?: string;
  json?: boolean;
}

export const DEFAULT_SINCE = '30d';

/** `--since` and `--by` checked: a bad one is a usage error that says what to pass instead. */
export function reportWindow(flags: Pick<ReportFlags, 'since' | 'by'>): {
  since: string;
  sinceMs: number;
  by?: GroupBy;
} {
  const since = (flags.since ?? DEFAULT_SINCE).trim();
  const sinceMs = parseDuration(since);
  if (sinceMs === undefined || sinceMs <= 0)
    throw new UsageError(`--since ${flags.since}: not a duration; pass one such as 30d, 7d, 12h or 90m`);
  if (flags.by === undefined) return { since, sinceMs };
  const by = GROUP_BY.find((g) => g === flags.by);
  if (!by) throw new UsageError(`--by ${flags.by}: group by ${GROUP_BY.join(', ')}`);
  return { since, sinceMs, by };
}

/** `issueloop report`: the figures over the records, as text or (with `--json`) the report itself. */
export function runReport(
  records: readonly OutcomeRecord[],
  flags: ReportFlags,
  now: number,
): { report: OutcomeReport; text: string } {
  const report = outcomeReport(records, { ...reportWindow(flags), now });
  return { report, text: renderOutcomeReport(report) };
}
