import type { ClaimStoreSettings } from '../claims/open-claim-store.js';
import { humanDuration } from '../core/human-duration.js';
import { type OutcomeReport, outcomeReport } from '../run/outcome-report.js';
import { dollarsText, percent, perMergedText } from '../run/outcome-text.js';
import { readOutcomes } from '../run/read-outcomes.js';
import type { SummaryWriter } from './report.js';

/** The action's window: the figures of the last 30 days, as `issueloop report` gives them by default. */
export const ACTION_SINCE = '30d';
const ACTION_SINCE_MS = 30 * 86_400_000;

/**
 * The outcome figures after a run, or undefined when the records cannot be read: the run's own
 * summary still goes out, with a warning saying why these figures are missing.
 */
export async function actionOutcomes(
  settings: ClaimStoreSettings,
  cwd: string,
  now: number,
  warn: (message: string) => void,
): Promise<OutcomeReport | undefined> {
  try {
    return outcomeReport(await readOutcomes(settings, cwd), {
      since: ACTION_SINCE,
      sinceMs: ACTION_SINCE_MS,
      now,
    });
  } catch (err) {
    warn(`issueloop: no outcome figures in the summary: ${(err as Error).message}`);
    return undefined;
  }
}

const header = (...cells: string[]) => cells.map((data) => ({ data, header: true }));

/**
 * A Mermaid pie of the PRs' fates (GitHub renders Mermaid in job summaries). Its labels are fixed
 * text and its values counts, so nothing from an issue or a label reaches the chart.
 */
export function fatePie(report: OutcomeReport): string | undefined {
  const { prs } = report.total;
  if (prs.opened === 0) return undefined;
  const slices: Array<[string, number]> = [
    ['merged', prs.merged],
    ['closed unmerged', prs.closed_unmerged],
    ['still open', prs.open],
  ];
  const lines = slices.filter(([, n]) => n > 0).map(([label, n]) => `    "${label}" : ${n}`);
  return ['```mermaid', `pie title Pull requests (last ${report.since})`, ...lines, '```'].join('\n');
}

/** The job summary's outcomes section: the chart, then each figure (README "Report"). */
export function writeOutcomes(out: SummaryWriter, report: OutcomeReport): void {
  const f = report.total;
  out.addHeading(`Outcomes, last ${report.since}`, 3);
  if (f.issues_attempted === 0) {
    out.addRaw('<p>No issue worked in this window.</p>', true);
    return;
  }
  const pie = fatePie(report);
  if (pie) out.addRaw(`\n${pie}\n`, true);
  const decided = f.prs.merged + f.prs.closed_unmerged;
  out.addTable([
    header('Figure', 'Value'),
    ['Issues attempted', String(f.issues_attempted)],
    [
      'Pull requests opened',
      `${f.prs.opened} (merged ${f.prs.merged}, closed unmerged ${f.prs.closed_unmerged}, still open ${f.prs.open})`,
    ],
    ['Acceptance rate', `${percent(f.acceptance_rate)} (${f.prs.merged} of ${decided} decided)`],
    ['Zero-touch rate', `${percent(f.zero_touch_rate)} (${f.zero_touch} of ${f.prs.merged} merged)`],
    ['Dollars', dollarsText(f.usd_total)],
    ['Dollars per merged PR', perMergedText(f)],
    ['Dollars on closed PRs', dollarsText(f.usd_on_closed_prs)],
    ['Median time to merge', f.median_ms_to_merge === null ? '-' : humanDuration(f.median_ms_to_merge)],
    [
      'Follow-ups per merged PR',
      f.followups_per_merged_pr === null ? '-' : f.followups_per_merged_pr.toFixed(2),
    ],
  ]);
}
