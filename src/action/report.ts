import { safeCount, safeDestination, safeRole } from '../core/destination-text.js';
import { bestOfText } from '../github/best-of-text.js';
import type { OutcomeReport } from '../run/outcome-report.js';
import { stopText, tally } from '../run/run-summary.js';
import type { RunSummary } from '../scheduler/run-rounds.js';
import { isFailure } from '../session/outcome.js';
import type { SessionReport } from '../session/session-report.js';

/**
 * What a workflow run reports: the job summary (a table per issue, failures by class, cost and the
 * GitHub requests charged), the step outputs, and an error annotation per failed issue.
 */
export interface SummaryWriter {
  addHeading(text: string, level?: number): SummaryWriter;
  addRaw(text: string, addEOL?: boolean): SummaryWriter;
  addTable(rows: Array<Array<string | { data: string; header?: boolean }>>): SummaryWriter;
}

export interface ActionReport {
  mode: 'issue' | 'drain';
  /** The one issue of issue mode. */
  issue?: number;
  titles: ReadonlyMap<number, string>;
  run?: {
    summary: RunSummary;
    requests: { charged: number; free: number };
    ledgerFile: string;
  };
  /** Why no work was done (refused, skipped), when none was. */
  notice?: string;
  /** What the token route means (the Actions token: no CI on the PRs), at the top of the summary. */
  route?: { warnings: readonly string[]; inactive: readonly string[] };
  /** The outcome figures of the last 30 days, read after the run (absent when it did not run). */
  outcomes?: OutcomeReport;
}

export interface ActionOutputs {
  outcome: string;
  pr_url: string;
  issues_resolved: string;
  cost_usd: string;
  /** PRs merged in the last 30 days; empty when no run read the outcome records. */
  merged: string;
  /** Dollars per merged PR over the last 30 days; empty with no merged PR yet. */
  usd_per_merged_pr: string;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The summary is HTML: an issue title or a failure reason must not open a tag. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

const dollars = (value: number) => `$${value.toFixed(2)}`;

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

function pullRequestCell(report: SessionReport): string {
  if (!report.pr) return '';
  return `<a href="${escapeHtml(report.pr.url)}">#${report.pr.number}</a>`;
}

function issueRow(report: SessionReport, titles: ReadonlyMap<number, string>): string[] {
  // A best-of-N claim says which attempt its PR is, or that none passed (the reason repeats it at length).
  const detail = report.bestOf
    ? bestOfText(report.bestOf)
    : report.outcome === 'resolved'
      ? ''
      : report.reason;
  return [
    `#${report.issue}`,
    escapeHtml(titles.get(report.issue) ?? ''),
    `<code>${escapeHtml(report.outcome)}</code>`,
    pullRequestCell(report),
    dollars(report.costUsd),
    minutes(report.durationMs),
    escapeHtml(detail.length > 200 ? `${detail.slice(0, 199)}…` : detail),
  ];
}

const header = (...cells: string[]) => cells.map((data) => ({ data, header: true }));

/**
 * What each session's egress proxy refused, so the maintainer can widen `sandbox.allow_domains` on
 * purpose: ten destinations a session at most, as shown text (core/destination-text.ts), escaped.
 */
function writeBlocked(out: SummaryWriter, reports: readonly SessionReport[]): void {
  const rows = reports.flatMap((r) =>
    (r.blockedRequests ?? [])
      .slice(0, 10)
      .map((b) => [
        `<code>${escapeHtml(safeDestination(b.destination))}</code>`,
        safeCount(b.count),
        safeRole(b.role),
        `#${r.issue}`,
      ]),
  );
  if (rows.length === 0) return;
  out.addHeading('Blocked network requests', 3);
  out.addRaw(
    '<p>The sandbox refused these; widen <code>sandbox.allow_domains</code> on purpose if the work needs one.</p>',
    true,
  );
  out.addTable([header('Destination', 'Times', 'Sandbox', 'Issue'), ...rows]);
}

/** The route's warnings first, as GitHub's warning alert, then what it switches off. */
function writeRoute(out: SummaryWriter, route: ActionReport['route']): void {
  if (!route) return;
  for (const warning of route.warnings) out.addRaw(`> [!WARNING]\n> ${escapeHtml(warning)}\n`, true);
  if (route.inactive.length > 0) {
    out.addRaw(`<ul>${route.inactive.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`, true);
  }
}

export function writeJobSummary(out: SummaryWriter, report: ActionReport): void {
  const run = report.run;
  const scope = report.mode === 'issue' ? `issue #${report.issue}` : 'drain';
  out.addHeading(`issueloop: ${scope}`, 2);
  writeRoute(out, report.route);
  if (report.notice) out.addRaw(`<p>${escapeHtml(report.notice)}</p>`, true);
  if (!run) return;
  const { summary, requests } = run;
  out.addRaw(`<p>${escapeHtml(stopText(summary))} after ${summary.rounds} round(s).</p>`, true);
  if (summary.stop === 'budget' && summary.stopDetail)
    out.addRaw(`<p>${escapeHtml(summary.stopDetail)}.</p>`, true);
  if (summary.reports.length > 0) {
    out.addTable([
      header('Issue', 'Title', 'Outcome', 'Pull request', 'Cost', 'Time', 'Reason'),
      ...summary.reports.map((r) => issueRow(r, report.titles)),
    ]);
  }
  writeBlocked(out, summary.reports);
  const count = tally(summary.reports);
  if (count.byClass.size > 0) {
    out.addHeading('Failures by class', 3);
    out.addTable([
      header('Class', 'Sessions'),
      ...[...count.byClass.entries()].map(([errorClass, n]) => [
        `<code>${escapeHtml(errorClass)}</code>`,
        String(n),
      ]),
    ]);
  }
  const shownSkips = summary.skipped.slice(0, 50);
  if (shownSkips.length > 0) {
    out.addHeading('Not worked', 3);
    out.addTable([
      header('Issue', 'Title', 'Why'),
      ...shownSkips.map((s) => [`#${s.issue}`, escapeHtml(s.title), escapeHtml(s.why)]),
    ]);
    if (summary.skipped.length > shownSkips.length)
      out.addRaw(`<p>…and ${summary.skipped.length - shownSkips.length} more.</p>`, true);
  }
  out.addTable([
    header('Resolved', 'Failed', 'Interrupted', 'Cost', 'GitHub requests charged', 'Free (304)'),
    [
      String(count.resolved),
      String(count.failed),
      String(count.interrupted),
      dollars(summary.costUsd),
      String(requests.charged),
      String(requests.free),
    ],
  ]);
}

/**
 * Step outputs. `outcome`: in issue mode the session's outcome, or `skipped` / `refused` when no
 * session ran; in drain mode why the run stopped. `pr_url`: every pull request opened or updated,
 * space-separated (one in issue mode). `merged`, `usd_per_merged_pr`: the outcome figures of the last
 * 30 days (README "Report").
 */
export function actionOutputs(report: ActionReport, noWork?: 'skipped' | 'refused'): ActionOutputs {
  const reports = report.run?.summary.reports ?? [];
  let outcome: string = noWork ?? 'skipped';
  if (report.run && !noWork) {
    const mine = reports.filter((r) => r.issue === report.issue).at(-1);
    outcome = report.mode === 'issue' ? (mine?.outcome ?? 'skipped') : report.run.summary.stop;
  }
  return {
    outcome,
    pr_url: [...new Set(reports.flatMap((r) => (r.pr ? [r.pr.url] : [])))].join(' '),
    issues_resolved: String(reports.filter((r) => r.outcome === 'resolved').length),
    cost_usd: (report.run?.summary.costUsd ?? 0).toFixed(4),
    merged: report.outcomes ? String(report.outcomes.total.prs.merged) : '',
    usd_per_merged_pr: report.outcomes?.total.usd_per_merged_pr?.toFixed(4) ?? '',
  };
}

/** One error annotation per failed session: it shows on the run's page without opening the log. */
export function failureAnnotations(report: ActionReport): Array<{ title: string; message: string }> {
  return (report.run?.summary.reports ?? [])
    .filter((r) => isFailure(r.outcome))
    .map((r) => ({
      title: `issueloop #${r.issue}: ${r.outcome}`,
      message: `${report.titles.get(r.issue) ?? `#${r.issue}`}: ${r.reason}`,
    }));
}
