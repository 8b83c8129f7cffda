import type { RunSummary } from '../scheduler/run-rounds.js';

const STOP_TEXT: Readonly<Record<RunSummary['stop'], string>> = {
  empty_backlog: 'the backlog stayed empty',
  max_rounds: 'round limit reached',
  budget: 'run budget reached',
  time_budget: 'time budget reached: no new claims',
  interrupted: 'interrupted; state saved, interrupted issues are retried first next time',
};

const dollars = (value: number) => `$${value.toFixed(2)}`;
const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

/** The table printed at the end of a run: per session, then totals by outcome and class. */
export function renderRunSummary(
  summary: RunSummary,
  requests: { charged: number; free: number },
  ledgerFile: string,
): string {
  const lines = [`issueloop run: ${STOP_TEXT[summary.stop]} after ${summary.rounds} round(s)`];
  if (summary.reports.length > 0) {
    lines.push('', 'issue  outcome              cost    time  pull request / reason');
    for (const r of summary.reports) {
      const detail = r.pr?.url ?? r.reason;
      lines.push(
        `#${String(r.issue).padEnd(5)} ${r.outcome.padEnd(20)} ${dollars(r.costUsd).padStart(6)} ${seconds(r.durationMs).padStart(5)}  ${detail}`,
      );
    }
  }
  const resolved = summary.reports.filter((r) => r.outcome === 'resolved').length;
  const failed = new Map<string, number>();
  for (const r of summary.reports) {
    if (r.outcome !== 'resolved' && r.outcome !== 'interrupted')
      failed.set(r.outcome, (failed.get(r.outcome) ?? 0) + 1);
  }
  const failures = [...failed.entries()].map(([outcome, n]) => `${outcome} ${n}`).join(', ');
  lines.push(
    '',
    `resolved ${resolved}, failed ${summary.reports.length - resolved - summary.reports.filter((r) => r.outcome === 'interrupted').length}${failures ? ` (${failures})` : ''}, cost ${dollars(summary.costUsd)}`,
    `GitHub requests: ${requests.charged} charged, ${requests.free} free (304 and rate-limit checks)`,
    `ledger: ${ledgerFile}`,
  );
  return `${lines.join('\n')}\n`;
}
