import { type OutcomeRecord, spentUsd } from '../../claims/outcome-record.js';
import { isActive, outcomeReport } from '../../run/outcome-report.js';
import { dollarsText, outcomesLine } from '../../run/outcome-text.js';

/** `status`'s outcomes: the window's line and, per issue worked in it, its PR's state. */
export interface StatusOutcomes {
  since: string;
  merged: number;
  opened: number;
  /** null with no merged PR yet. */
  usdPerMergedPr: number | null;
  issues: Array<{ issue: number; pr: 'open' | 'merged' | 'closed' | 'none'; url?: string; costUsd: number }>;
}

export const STATUS_SINCE = '30d';
const STATUS_SINCE_MS = 30 * 86_400_000;
/** Issues listed at most; `issueloop report` has the rest in figures. */
const SHOWN = 20;

export function statusOutcomes(records: readonly OutcomeRecord[], now: number): StatusOutcomes {
  const report = outcomeReport(records, { since: STATUS_SINCE, sinceMs: STATUS_SINCE_MS, now });
  const active = records
    .filter((r) => isActive(r, now - STATUS_SINCE_MS, now))
    .sort((a, b) => a.issue - b.issue)
    .map((r) => ({
      issue: r.issue,
      pr: r.pull?.state ?? ('none' as const),
      ...(r.pull ? { url: r.pull.url } : {}),
      costUsd: spentUsd(r),
    }));
  return {
    since: report.since,
    merged: report.total.prs.merged,
    opened: report.total.prs.opened,
    usdPerMergedPr: report.total.usd_per_merged_pr,
    issues: active,
  };
}

const PR_TEXT = {
  open: 'PR open',
  merged: 'PR merged',
  closed: 'PR closed unmerged',
  none: 'no PR',
} as const;

/** The outcomes line, then a line per issue (its PR's state, what it cost in all), twenty at most. */
export function renderStatusOutcomes(o: StatusOutcomes): string[] {
  const lines = [
    outcomesLine({
      since: o.since,
      total: { prs: { merged: o.merged, opened: o.opened }, usd_per_merged_pr: o.usdPerMergedPr },
    }),
  ];
  for (const i of o.issues.slice(0, SHOWN))
    lines.push(`  #${i.issue} ${PR_TEXT[i.pr]} ${dollarsText(i.costUsd)} ${i.url ?? ''}`.trimEnd());
  if (o.issues.length > SHOWN) lines.push(`  … and ${o.issues.length - SHOWN} more (issueloop report)`);
  return lines;
}
