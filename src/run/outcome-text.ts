import { humanDuration } from '../core/human-duration.js';
import type { OutcomeFigures, OutcomeReport } from './outcome-report.js';

/** The outcome figures as text: `issueloop report`'s table and `status`'s one line. */

export const NO_MERGED_PR = 'no merged PR yet';

export const percent = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);
export const dollarsText = (usd: number) => `$${usd.toFixed(2)}`;
export const perMergedText = (f: Pick<OutcomeFigures, 'usd_per_merged_pr'>) =>
  f.usd_per_merged_pr === null ? NO_MERGED_PR : dollarsText(f.usd_per_merged_pr);
const timeText = (ms: number | null) => (ms === null ? '-' : humanDuration(ms));
const followupsText = (n: number | null) => (n === null ? '-' : n.toFixed(2));

/** `outcomes (30d): 2 merged of 4 opened, $1.75 per merged PR` (status's line). */
export function outcomesLine(report: {
  since: string;
  total: { prs: Pick<OutcomeFigures['prs'], 'merged' | 'opened'>; usd_per_merged_pr: number | null };
}): string {
  const { prs } = report.total;
  return `outcomes (${report.since}): ${prs.merged} merged of ${prs.opened} opened, ${
    report.total.usd_per_merged_pr === null
      ? NO_MERGED_PR
      : `${dollarsText(report.total.usd_per_merged_pr)} per merged PR`
  }`;
}

function figureLines(f: OutcomeFigures): string[] {
  const decided = f.prs.merged + f.prs.closed_unmerged;
  return [
    `  issues attempted          ${f.issues_attempted}`,
    `  PRs opened                ${f.prs.opened} (merged ${f.prs.merged}, closed unmerged ${f.prs.closed_unmerged}, still open ${f.prs.open})`,
    `  acceptance rate           ${percent(f.acceptance_rate)} (${f.prs.merged} merged of ${decided} decided)`,
    `  zero-touch rate           ${percent(f.zero_touch_rate)} (${f.zero_touch} of ${f.prs.merged} merged)`,
    `  dollars                   ${dollarsText(f.usd_total)}`,
    `  dollars per merged PR     ${perMergedText(f)}`,
    `  dollars on closed PRs     ${dollarsText(f.usd_on_closed_prs)}`,
    `  median time to merge      ${timeText(f.median_ms_to_merge)}`,
    `  follow-ups per merged PR  ${followupsText(f.followups_per_merged_pr)}`,
  ];
}

const COLUMNS = ['issues', 'opened', 'merged', 'closed', 'open', 'accepted', 'zero-touch', '$', '$/merged'];

function groupCells(f: OutcomeFigures): string[] {
  return [
    String(f.issues_attempted),
    String(f.prs.opened),
    String(f.prs.merged),
    String(f.prs.closed_unmerged),
    String(f.prs.open),
    percent(f.acceptance_rate),
    percent(f.zero_touch_rate),
    dollarsText(f.usd_total),
    f.usd_per_merged_pr === null ? '-' : dollarsText(f.usd_per_merged_pr),
  ];
}

function table(rows: readonly string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    `  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ')}`.trimEnd(),
  );
}

/** `issueloop report` as text: the totals, then a row per group with `--by`. */
export function renderOutcomeReport(report: OutcomeReport): string {
  const lines = [`outcomes over the last ${report.since} (${report.from} to ${report.to}):`];
  if (report.total.issues_attempted === 0) lines.push('  no issue worked in this window');
  else lines.push(...figureLines(report.total));
  if (report.by && report.groups) {
    lines.push(
      '',
      `by ${report.by}${report.by === 'label' ? ' (an issue with two labels counts in both)' : ''}:`,
    );
    if (report.groups.length === 0) lines.push('  (none)');
    else
      lines.push(...table([[report.by, ...COLUMNS], ...report.groups.map((g) => [g.key, ...groupCells(g)])]));
  }
  return `${lines.join('\n')}\n`;
}
