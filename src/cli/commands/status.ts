import type { ClaimView } from '../../claims/claim-store.js';
import { failureCount, failureText } from '../../claims/claims-state.js';
import { humanDuration } from '../../core/human-duration.js';
import { type LedgerEvent, latestLedger, readLedger } from '../../session/ledger.js';

export interface StatusReport {
  lastRun?: {
    id: string;
    file: string;
    startedAt?: string;
    stop?: string;
    costUsd: number;
    /** The newest outcome per issue. */
    issues: Array<{
      issue: number;
      outcome: string;
      pr?: string;
      costUsd: number;
      durationMs: number;
      reason: string;
    }>;
    /** Lines of the ledger that did not parse (a crash mid-write). */
    skippedLines: number;
    /** issueloop's pull requests as the run last saw them: open (with what each needs), merged, closed. */
    pulls: Array<{ issue: number; pr: string; state: string; detail: string }>;
  };
  leases: Array<{ issue: number; owner: string; expiresAt: string }>;
  needsHuman: Array<{ issue: number; failures: number; lastReason?: string }>;
}

const num = (value: unknown) => (typeof value === 'number' ? value : 0);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

function lastRunOf(file: string, events: readonly LedgerEvent[], skipped: number): StatusReport['lastRun'] {
  const outcomes = new Map<number, NonNullable<StatusReport['lastRun']>['issues'][number]>();
  for (const event of events) {
    if (event.type !== 'outcome' || typeof event.issue !== 'number') continue;
    const pr = str(event.pr);
    outcomes.set(event.issue, {
      issue: event.issue,
      outcome: str(event.outcome) ?? 'unknown',
      ...(pr ? { pr } : {}),
      costUsd: num(event.costUsd),
      durationMs: num(event.durationMs),
      reason: str(event.reason) ?? '',
    });
  }
  const pulls = new Map<number, NonNullable<StatusReport['lastRun']>['pulls'][number]>();
  for (const event of events) {
    if (event.type !== 'pull_request' || typeof event.issue !== 'number') continue;
    const state = str(event.state) ?? 'open';
    pulls.set(event.issue, {
      issue: event.issue,
      pr: str(event.pr) ?? '',
      state,
      detail: str(event.detail) ?? (state === 'merged' ? 'merged' : 'closed without merging'),
    });
  }
  const start = events.find((e) => e.type === 'run_start');
  const end = events.findLast((e) => e.type === 'run_end');
  const issues = [...outcomes.values()].sort((a, b) => a.issue - b.issue);
  const stop = str(end?.stop);
  return {
    id: str(events[0]?.run) ?? file,
    file,
    ...(start ? { startedAt: start.ts } : {}),
    // A run without its end line crashed or is still running.
    stop: stop ?? 'running or crashed',
    costUsd: issues.reduce((total, i) => total + i.costUsd, 0),
    issues,
    skippedLines: skipped,
    pulls: [...pulls.values()].sort((a, b) => a.issue - b.issue),
  };
}

/** `issueloop status`: the last run (from its ledger), the live leases and the needs-human list. */
export async function readStatus(
  stateDir: string,
  claims: readonly ClaimView[],
  now: number,
): Promise<StatusReport> {
  const file = await latestLedger(stateDir);
  const report: StatusReport = {
    leases: claims
      .filter((c) => c.lease && Date.parse(c.lease.expires_at) > now)
      .map((c) => ({ issue: c.issue, owner: c.lease?.owner ?? '', expiresAt: c.lease?.expires_at ?? '' })),
    needsHuman: claims
      .filter((c) => c.needs_human)
      .map((c) => {
        const last = c.failure_reasons.at(-1);
        return {
          issue: c.issue,
          failures: c.failure_count,
          ...(last ? { lastReason: failureText(last) } : {}),
        };
      }),
  };
  if (file) {
    const { events, skipped } = await readLedger(file);
    const lastRun = lastRunOf(file, events, skipped);
    if (lastRun) report.lastRun = lastRun;
  }
  return report;
}

export function renderStatus(report: StatusReport, now: number): string {
  const lines: string[] = [];
  const run = report.lastRun;
  if (!run) lines.push('no run yet (no ledger in the state directory)');
  else {
    lines.push(`last run ${run.id}: ${run.stop}, $${run.costUsd.toFixed(2)} (${run.file})`);
    for (const i of run.issues) {
      lines.push(
        `  #${i.issue} ${i.outcome} $${i.costUsd.toFixed(2)} ${humanDuration(i.durationMs)} ${i.pr ?? i.reason}`.trimEnd(),
      );
    }
    if (run.skippedLines > 0) lines.push(`  (${run.skippedLines} unreadable ledger line(s) skipped)`);
    if (run.pulls.length > 0) lines.push('', 'pull requests:');
    for (const p of run.pulls) {
      lines.push(`  #${p.issue} ${p.state === 'open' ? `open: ${p.detail}` : p.detail} ${p.pr}`.trimEnd());
    }
  }
  lines.push('', report.leases.length === 0 ? 'no live leases' : 'live leases:');
  for (const l of report.leases) {
    lines.push(`  #${l.issue} held by ${l.owner}, ${humanDuration(Date.parse(l.expiresAt) - now)} left`);
  }
  lines.push('', report.needsHuman.length === 0 ? 'nothing needs a human' : 'needs a human:');
  for (const n of report.needsHuman)
    lines.push(`  #${n.issue} after ${failureCount(n.failures)}${n.lastReason ? `: ${n.lastReason}` : ''}`);
  return `${lines.join('\n')}\n`;
}
