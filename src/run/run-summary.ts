import { describeBlocked } from '../core/destination-text.js';
import { bestOfText } from '../github/best-of-text.js';
import type { RunSummary } from '../scheduler/run-rounds.js';
import { failureClassOf, isFailure } from '../session/outcome.js';
import type { SessionReport } from '../session/session-report.js';

export const STOP_TEXT: Readonly<Record<RunSummary['stop'], string>> = {
  empty_backlog: 'the backlog stayed empty',
  max_rounds: 'round limit reached',
  budget: 'run budget reached',
  time_budget: 'time budget reached: no new claims',
  interrupted: 'interrupted; state saved, interrupted work is retried first next time',
};

/**
 * Why the run stopped, in words. A shared spend cap (`budget.*`) says so; `stopDetail` then names the
 * cap, what is spent and reserved, and when its window reopens, on a line of its own.
 */
export function stopText(summary: Pick<RunSummary, 'stop' | 'stopDetail'>): string {
  return summary.stop === 'budget' && summary.stopDetail
    ? 'spend cap reached: no new claims'
    : STOP_TEXT[summary.stop];
}

const dollars = (value: number) => `$${value.toFixed(2)}`;
const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

export interface Tally {
  resolved: number;
  interrupted: number;
  failed: number;
  /** Plans posted that wait for a maintainer (`plan_review`): neither resolved nor failed. */
  planned: number;
  /** Failure class (`verify_failed`, `no_changes`, `auth`, …) → sessions. */
  byClass: Map<string, number>;
}

/** How a run's sessions ended, by outcome and by failure class. */
export function tally(reports: readonly SessionReport[]): Tally {
  const byClass = new Map<string, number>();
  let resolved = 0;
  let interrupted = 0;
  let planned = 0;
  let failed = 0;
  for (const r of reports) {
    if (r.outcome === 'resolved') resolved += 1;
    else if (r.outcome === 'interrupted') interrupted += 1;
    else if (r.outcome === 'plan_review') planned += 1;
    if (!isFailure(r.outcome)) continue;
    failed += 1;
    const errorClass = failureClassOf(r.outcome);
    byClass.set(errorClass, (byClass.get(errorClass) ?? 0) + 1);
  }
  return { resolved, interrupted, failed, planned, byClass };
}

/** The table printed at the end of a run: per session, then totals by outcome and class. */
export function renderRunSummary(
  summary: RunSummary,
  requests: { charged: number; free: number } | undefined,
  ledgerFile: string,
  /** A task run names its tasks (`task 3`); an issue run prints `#12`. */
  label?: (issue: number) => string,
  /** `run --issue N`: the issues named, which the run ends on rather than on an empty backlog. */
  named?: readonly number[],
): string {
  const stop =
    summary.stop !== 'empty_backlog'
      ? stopText(summary)
      : label
        ? 'no task left to run'
        : named && named.length > 0
          ? `nothing left to do on the named issue${named.length === 1 ? '' : 's'} (${named.map((n) => `#${n}`).join(', ')})`
          : STOP_TEXT.empty_backlog;
  const lines = [`issueloop run: ${stop} after ${summary.rounds} round(s)`];
  if (summary.stop === 'budget' && summary.stopDetail) lines.push(summary.stopDetail);
  if (summary.reports.length > 0) {
    lines.push(
      '',
      label
        ? 'task     outcome              cost    time  commit / reason'
        : 'issue  outcome              cost    time  pull request / reason',
    );
    for (const r of summary.reports) {
      // A best-of-N claim says which attempt its PR is (or that none passed) beside it.
      const chosen = r.bestOf ? bestOfText(r.bestOf) : undefined;
      const detail = chosen ? (r.pr ? `${r.pr.url} · ${chosen}` : chosen) : (r.pr?.url ?? r.reason);
      const name = label ? label(r.issue).padEnd(8) : `#${String(r.issue).padEnd(5)}`;
      lines.push(
        `${name} ${r.outcome.padEnd(20)} ${dollars(r.costUsd).padStart(6)} ${seconds(r.durationMs).padStart(5)}  ${detail}`,
      );
    }
  }
  lines.push(...blockedLines(summary.reports, label));
  const count = tally(summary.reports);
  const failures = [...count.byClass.entries()].map(([errorClass, n]) => `${errorClass} ${n}`).join(', ');
  lines.push(
    '',
    `resolved ${count.resolved}, failed ${count.failed}${failures ? ` (${failures})` : ''}${count.planned > 0 ? `, plans posted ${count.planned}` : ''}, cost ${dollars(summary.costUsd)}`,
    ...(requests
      ? [`GitHub requests: ${requests.charged} charged, ${requests.free} free (304 and rate-limit checks)`]
      : []),
    `ledger: ${ledgerFile}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The destinations each session's sandbox refused, so a maintainer can widen `sandbox.allow_domains`
 * on purpose: five per session at most, shown as plain text (see core/destination-text.ts).
 */
function blockedLines(reports: readonly SessionReport[], label?: (issue: number) => string): string[] {
  const blocked = reports.filter((r) => r.blockedRequests && r.blockedRequests.length > 0);
  if (blocked.length === 0) return [];
  const lines = ['', 'blocked network requests (widen sandbox.allow_domains on purpose):'];
  for (const r of blocked) {
    const all = r.blockedRequests ?? [];
    const more = all.length > 5 ? `, … and ${all.length - 5} more` : '';
    lines.push(
      `  ${label ? label(r.issue) : `#${r.issue}`} ${all.slice(0, 5).map(describeBlocked).join(', ')}${more}`,
    );
  }
  return lines;
}

/** Dollar amounts in JSON to the micro-dollar: 0.007293, not the float sum 0.007292999999999999. */
export function roundedCosts(key: string, value: unknown): unknown {
  return typeof value === 'number' && /usd$/i.test(key) ? Math.round(value * 1e6) / 1e6 : value;
}
