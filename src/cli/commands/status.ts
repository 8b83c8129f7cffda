import type { ClaimView } from '../../claims/claim-store.js';
import { failureCount, failureText } from '../../claims/claims-state.js';
import type { OutcomeRecord } from '../../claims/outcome-record.js';
import { describeBlocked, safeDestination, safeRole } from '../../core/destination-text.js';
import { humanDuration } from '../../core/human-duration.js';
import { type LedgerEvent, latestLedger, readLedger } from '../../session/ledger.js';
import { renderStatusOutcomes, type StatusOutcomes, statusOutcomes } from './status-outcomes.js';

export interface StatusReport {
  lastRun?: {
    id: string;
    file: string;
    startedAt?: string;
    stop?: string;
    costUsd: number;
    /**
     * The newest outcome per issue, with the cost and time of all its sessions in the run (a first
     * attempt and its retries or follow-ups).
     */
    issues: Array<{
      issue: number;
      outcome: string;
      pr?: string;
      costUsd: number;
      durationMs: number;
      reason: string;
      /** Sessions in the run: each attempt of a best-of-N claim is one. */
      sessions: number;
      /** Its newest claim ran best-of-N: the attempts given, those that ran, the one chosen (omitted otherwise). */
      bestOf?: { n: number; ran: number; winner?: number };
      /** Destinations the sandbox's egress proxy refused, over the issue's sessions (omitted when none). */
      blockedRequests?: BlockedSeen[];
    }>;
    /** Lines of the ledger that did not parse (a crash mid-write). */
    skippedLines: number;
    /** issueloop's pull requests as the run last saw them: open (with what each needs), merged, closed. */
    pulls: Array<{
      issue: number;
      pr: string;
      state: string;
      detail: string;
      /** An open one's: its head's checks (`none`, `pending`, `failed`, `passed`), mergeability, follow-ups so far. */
      checks?: string;
      mergeable?: boolean | null;
      followups?: number;
    }>;
  };
  leases: Array<{ issue: number; owner: string; expiresAt: string }>;
  needsHuman: Array<{ issue: number; failures: number; lastReason?: string }>;
  /** What the issues worked in the last 30 days came to (their outcome records). */
  outcomes?: StatusOutcomes;
}

const num = (value: unknown) => (typeof value === 'number' ? value : 0);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** A best-of-N claim's `attempts` event (written just before its `outcome`), as status shows it. */
function bestOfIn(event: LedgerEvent): { n: number; ran: number; winner?: number } | undefined {
  const ran = Array.isArray(event.attempts) ? event.attempts.length : 0;
  const n = num(event.n);
  if (!Number.isSafeInteger(n) || n < 1) return undefined;
  return { n, ran, ...(typeof event.winner === 'number' ? { winner: event.winner } : {}) };
}

function lastRunOf(file: string, events: readonly LedgerEvent[], skipped: number): StatusReport['lastRun'] {
  const outcomes = new Map<number, NonNullable<StatusReport['lastRun']>['issues'][number]>();
  const judged = new Map<number, { n: number; ran: number; winner?: number }>();
  for (const event of events) {
    if (typeof event.issue !== 'number') continue;
    const bestOf = event.type === 'attempts' ? bestOfIn(event) : undefined;
    if (bestOf) judged.set(event.issue, bestOf);
    if (event.type !== 'outcome') continue;
    const pr = str(event.pr);
    const before = outcomes.get(event.issue);
    const blocked = addBlocked(before?.blockedRequests, event.blockedRequests);
    const claim = judged.get(event.issue);
    judged.delete(event.issue);
    outcomes.set(event.issue, {
      issue: event.issue,
      outcome: str(event.outcome) ?? 'unknown',
      ...(pr ? { pr } : {}),
      costUsd: (before?.costUsd ?? 0) + num(event.costUsd),
      durationMs: (before?.durationMs ?? 0) + num(event.durationMs),
      reason: str(event.reason) ?? '',
      sessions: (before?.sessions ?? 0) + (claim ? claim.ran : 1),
      ...(claim ? { bestOf: claim } : {}),
      ...(blocked.length > 0 ? { blockedRequests: blocked } : {}),
    });
  }
  const pulls = new Map<number, NonNullable<StatusReport['lastRun']>['pulls'][number]>();
  for (const event of events) {
    if (event.type !== 'pull_request' || typeof event.issue !== 'number') continue;
    const state = str(event.state) ?? 'open';
    const checks = str(event.checks);
    const mergeable = event.mergeable;
    pulls.set(event.issue, {
      issue: event.issue,
      pr: str(event.pr) ?? '',
      state,
      detail: str(event.detail) ?? (state === 'merged' ? 'merged' : 'closed without merging'),
      ...(checks ? { checks } : {}),
      ...(typeof mergeable === 'boolean' || mergeable === null ? { mergeable } : {}),
      ...(typeof event.followups === 'number' ? { followups: event.followups } : {}),
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

export interface BlockedSeen {
  role: string;
  destination: string;
  count: number;
}

/**
 * An outcome's refused destinations added to the issue's so far. The ledger keeps them as shown text
 * already; they are cleaned again here, since a ledger is only a file.
 */
function addBlocked(sofar: readonly BlockedSeen[] = [], more: unknown): BlockedSeen[] {
  const all = sofar.map((b) => ({ ...b }));
  for (const entry of Array.isArray(more) ? (more as unknown[]) : []) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { role, destination, count } = entry as Record<string, unknown>;
    if (typeof destination !== 'string' || typeof count !== 'number') continue;
    if (!Number.isSafeInteger(count) || count < 1) continue;
    const seen = { role: safeRole(String(role)), destination: safeDestination(destination), count };
    const known = all.find((b) => b.role === seen.role && b.destination === seen.destination);
    if (known) known.count += count;
    else all.push(seen);
  }
  return all.sort((a, b) => b.count - a.count || a.destination.localeCompare(b.destination));
}

/**
 * `issueloop status`: the last run (from its ledger), the outcomes of the last 30 days (from the
 * outcome records, when given), the live leases and the needs-human list.
 */
export async function readStatus(
  stateDir: string,
  claims: readonly ClaimView[],
  now: number,
  records?: readonly OutcomeRecord[],
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
  if (records) report.outcomes = statusOutcomes(records, now);
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
      const sessions = statusNote(i);
      lines.push(
        `  #${i.issue} ${i.outcome} $${i.costUsd.toFixed(2)} ${humanDuration(i.durationMs)}${sessions} ${i.pr ?? i.reason}`.trimEnd(),
      );
    }
    if (run.skippedLines > 0) lines.push(`  (${run.skippedLines} unreadable ledger line(s) skipped)`);
    const blocked = run.issues.filter((i) => i.blockedRequests);
    if (blocked.length > 0)
      lines.push('', 'blocked network requests (widen sandbox.allow_domains on purpose):');
    for (const i of blocked) lines.push(`  #${i.issue} ${blockedText(i.blockedRequests ?? [])}`);
    if (run.pulls.length > 0) lines.push('', 'pull requests:');
    for (const p of run.pulls) {
      const followups = p.followups ? `; ${p.followups} follow-up(s)` : '';
      lines.push(
        `  #${p.issue} ${p.state === 'open' ? `open: ${p.detail}${followups}` : p.detail} ${p.pr}`.trimEnd(),
      );
    }
  }
  if (report.outcomes) lines.push('', ...renderStatusOutcomes(report.outcomes));
  lines.push('', report.leases.length === 0 ? 'no live leases' : 'live leases:');
  for (const l of report.leases) {
    lines.push(`  #${l.issue} held by ${l.owner}, ${humanDuration(Date.parse(l.expiresAt) - now)} left`);
  }
  lines.push('', report.needsHuman.length === 0 ? 'nothing needs a human' : 'needs a human:');
  for (const n of report.needsHuman)
    lines.push(`  #${n.issue} after ${failureCount(n.failures)}${n.lastReason ? `: ${n.lastReason}` : ''}`);
  return `${lines.join('\n')}\n`;
}

/** ` (best of 3: attempt 2 chosen; 4 sessions)`, ` (2 sessions)`, or nothing for one session. */
function statusNote(i: NonNullable<StatusReport['lastRun']>['issues'][number]): string {
  const notes: string[] = [];
  if (i.bestOf) {
    const { n, ran, winner } = i.bestOf;
    const of = ran < n ? ` (${ran} ran)` : '';
    notes.push(`best of ${n}${of}: ${winner === undefined ? 'none chosen' : `attempt ${winner} chosen`}`);
  }
  if (i.sessions > 1) notes.push(`${i.sessions} sessions`);
  return notes.length > 0 ? ` (${notes.join('; ')})` : '';
}

/** `a.example:443 ×3 (setup), b.example:80 ×1 (commands), … and 2 more`. */
function blockedText(blocked: readonly BlockedSeen[]): string {
  const shown = blocked.slice(0, 5).map(describeBlocked);
  return `${shown.join(', ')}${blocked.length > 5 ? `, … and ${blocked.length - 5} more` : ''}`;
}
