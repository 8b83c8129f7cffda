import { type OutcomeRecord, pullsOf, type SessionEntry, zeroTouch } from '../claims/outcome-record.js';

/**
 * What the fleet achieved and what it cost, over a window, from the issues' outcome records: the
 * figures behind `issueloop report`, the action's job summary and outputs, and `status`'s outcomes
 * line. Pure: the records and the clock's now come in, the figures go out.
 *
 * The rules (README "Report" says the same):
 * - An issue counts when any of its sessions ended in the window, or its PR opened, merged or closed
 *   in it. Its PR counts by the state the sweep last saw; so does each earlier PR of the issue (one
 *   closed unmerged before the issue was worked again), so PRs are counted, not issues.
 * - A session's dollars belong to the PR it worked on: the issue's first PR that had not ended
 *   (merged, closed, or replaced) when the session ended; the current PR takes the rest.
 * - Spend and follow-ups are the sessions that ended in the window: a PR merged early in the window
 *   whose first attempt ran before it brings its merge, not that attempt's dollars.
 * - `--by label`: an issue counts in the group of each of its labels (one with two labels counts in
 *   both, so groups can add up to more than the total); one without labels in `(no label)`.
 * - `--by engine` / `--by model`: a session belongs to its engine, and to its first model (the one it
 *   asked; a failover's later models answered for it, so splitting would blur what was chosen); its
 *   dollars all go there, so the groups' dollars add up to the total. An issue counts in the group of
 *   each of its sessions (any time), with the group's sessions in the window as its spend.
 */
export type GroupBy = 'label' | 'engine' | 'model';
export const GROUP_BY: readonly GroupBy[] = ['label', 'engine', 'model'];

export interface OutcomeFigures {
  /** Issues with a session or a PR event in the window. */
  issues_attempted: number;
  prs: { opened: number; merged: number; closed_unmerged: number; open: number };
  /** merged / (merged + closed unmerged); null when none is decided. Still-open PRs are undecided. */
  acceptance_rate: number | null;
  /** Merged with no human commit and no change request. */
  zero_touch: number;
  /** zero_touch / merged; null with no merged PR. */
  zero_touch_rate: number | null;
  /** Dollars of the sessions in the window. */
  usd_total: number;
  /** usd_total / merged; null with no merged PR ("no merged PR yet"). */
  usd_per_merged_pr: number | null;
  /** Dollars of the sessions in the window that worked on a PR closed unmerged. */
  usd_on_closed_prs: number;
  /** Median of merged_at − first_claimed_at over merged PRs, ms; null with none. */
  median_ms_to_merge: number | null;
  /** Sessions in the window of kind other than `attempt` on merged issues, per merged PR; null with none. */
  followups_per_merged_pr: number | null;
}

export interface OutcomeReport {
  /** The window as asked (`30d`) and as instants (ISO 8601). */
  since: string;
  from: string;
  to: string;
  total: OutcomeFigures;
  by?: GroupBy;
  /** Per group, sorted by key; present with `by`. */
  groups?: Array<{ key: string } & OutcomeFigures>;
}

interface Counted {
  record: OutcomeRecord;
  /** The sessions whose spend counts (in the window, and of the group). */
  sessions: readonly SessionEntry[];
}

const NO_LABEL = '(no label)';
const UNKNOWN = '(unknown)';

/** Dollars kept to a millionth: sums of floats do not print as 0.30000000000000004. */
const usd = (value: number) => Math.round(value * 1e6) / 1e6;
const ratio = (part: number, whole: number) => (whole === 0 ? null : part / whole);

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? 0) + upper) / 2;
}

/** Dollars of the counted sessions that worked on a PR closed unmerged (see the rules above). */
function closedSpend(c: Counted): number {
  const pulls = pullsOf(c.record);
  const ended = (i: number) => {
    const p = pulls[i];
    return Date.parse(p?.merged_at ?? p?.closed_at ?? pulls[i + 1]?.opened_at ?? '');
  };
  let spent = 0;
  for (const s of c.sessions) {
    const at = Date.parse(s.at);
    const owner = pulls.find((_, i) => i === pulls.length - 1 || at <= ended(i));
    if (owner?.state === 'closed') spent += s.usd;
  }
  return spent;
}

/** The figures over counted issues, each with the sessions whose spend counts. */
export function figuresOf(counted: readonly Counted[]): OutcomeFigures {
  const pulls = counted.flatMap((c) => pullsOf(c.record));
  const mergedPulls = pulls.filter((p) => p.state === 'merged').length;
  const closedPulls = pulls.filter((p) => p.state === 'closed').length;
  const merged = counted.filter((c) => c.record.pull?.state === 'merged');
  const total = counted.reduce((sum, c) => sum + c.sessions.reduce((s, e) => s + e.usd, 0), 0);
  const followups = merged.reduce((n, c) => n + c.sessions.filter((s) => s.kind !== 'attempt').length, 0);
  const toMerge = merged.flatMap((c) => {
    const ms = Date.parse(c.record.pull?.merged_at ?? '') - Date.parse(c.record.first_claimed_at);
    return Number.isFinite(ms) ? [ms] : [];
  });
  const zero = merged.filter((c) => zeroTouch(c.record)).length;
  return {
    issues_attempted: counted.length,
    prs: {
      opened: pulls.length,
      merged: mergedPulls,
      closed_unmerged: closedPulls,
      open: pulls.length - mergedPulls - closedPulls,
    },
    acceptance_rate: ratio(mergedPulls, mergedPulls + closedPulls),
    zero_touch: zero,
    zero_touch_rate: ratio(zero, mergedPulls),
    usd_total: usd(total),
    usd_per_merged_pr: mergedPulls === 0 ? null : usd(total / mergedPulls),
    usd_on_closed_prs: usd(counted.reduce((sum, c) => sum + closedSpend(c), 0)),
    median_ms_to_merge: median(toMerge),
    followups_per_merged_pr: ratio(followups, mergedPulls),
  };
}

function inWindow(iso: string | undefined, from: number, to: number): boolean {
  if (iso === undefined) return false;
  const at = Date.parse(iso);
  return at >= from && at <= to;
}

function sessionKey(session: SessionEntry, by: 'engine' | 'model'): string {
  return by === 'engine' ? session.engine : (session.models[0] ?? UNKNOWN);
}

/** Each group's counted issues: by label the issue's sessions, by engine/model the group's sessions. */
function grouped(counted: readonly Counted[], by: GroupBy): Map<string, Counted[]> {
  const groups = new Map<string, Counted[]>();
  const add = (key: string, entry: Counted) => groups.set(key, [...(groups.get(key) ?? []), entry]);
  for (const entry of counted) {
    if (by === 'label') {
      const labels = entry.record.labels.length > 0 ? new Set(entry.record.labels) : [NO_LABEL];
      for (const label of labels) add(label, entry);
      continue;
    }
    const keys = new Set(entry.record.sessions.map((s) => sessionKey(s, by)));
    for (const key of keys)
      add(key, { record: entry.record, sessions: entry.sessions.filter((s) => sessionKey(s, by) === key) });
  }
  return groups;
}

/** A session ended, or the PR opened, merged or closed, in `[from, to]` (epoch ms). */
export function isActive(record: OutcomeRecord, from: number, to: number): boolean {
  return record.sessions.some((s) => inWindow(s.at, from, to)) || pullActive(record, from, to);
}

/** Any PR of the issue opened, merged or closed in `[from, to]`. */
function pullActive(record: OutcomeRecord, from: number, to: number): boolean {
  return pullsOf(record).some((p) =>
    [p.opened_at, p.merged_at, p.closed_at].some((at) => inWindow(at, from, to)),
  );
}

/** The report over the records active in `[now − sinceMs, now]`. */
export function outcomeReport(
  records: readonly OutcomeRecord[],
  options: { since: string; sinceMs: number; now: number; by?: GroupBy },
): OutcomeReport {
  const to = options.now;
  // A window longer than the epoch (`--since 1000000000d`) is all of it, not an invalid date.
  const from = Math.max(0, to - options.sinceMs);
  const counted: Counted[] = [];
  for (const record of records) {
    const sessions = record.sessions.filter((s) => inWindow(s.at, from, to));
    if (sessions.length > 0 || pullActive(record, from, to)) counted.push({ record, sessions });
  }
  counted.sort((a, b) => a.record.issue - b.record.issue);
  const report: OutcomeReport = {
    since: options.since,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    total: figuresOf(counted),
  };
  if (options.by) {
    const groups = grouped(counted, options.by);
    report.by = options.by;
    report.groups = [...groups.keys()]
      .sort((a, b) => a.localeCompare(b))
      .map((key) => ({ key, ...figuresOf(groups.get(key) ?? []) }));
  }
  return report;
}
