/**
 * What the fleet achieved for one issue, kept beside its claim (file or Redis, so every runner sees
 * it): each session with what it cost, the pull request's fate, and how much a person had to touch
 * it. `issueloop report` and `status` read these; the PR sweep keeps them; a store that does not know
 * an issue imports its record from GitHub (the tracking comment and the PR), as failure history is.
 */

/** Why a session ran: the first attempt (or a retry of it), or a follow-up on the issue's open PR. */
export type SessionKind = 'attempt' | 'ci_followup' | 'review_followup' | 'base_merge';

export interface SessionEntry {
  kind: SessionKind;
  /** ISO 8601: when it ended. */
  at: string;
  /** The run it was part of (`runs/<run-id>.jsonl`). */
  run_id: string;
  engine: 'native' | 'claude-code';
  /** Every model that answered in it, in order of first use (a failover adds one). */
  models: string[];
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  usd: number;
  duration_ms: number;
  /** `resolved`, `no_changes`, `verify_failed`, `error:<class>`, `interrupted`, … */
  outcome: string;
}

export type PullState = 'open' | 'merged' | 'closed';

/** issueloop's pull request for the issue, as the sweep last saw it. */
export interface PullFate {
  number: number;
  url: string;
  state: PullState;
  /** ISO 8601. */
  opened_at: string;
  merged_at?: string;
  closed_at?: string;
  /** Who merged it, or closed it unmerged. */
  by?: string;
  /** The head commit and GitHub's updated_at when the sweep last counted its touch (added by the store). */
  head_sha?: string;
  updated_at?: string;
}

/** What people did to the PR after it opened (issueloop's own account excluded). */
export interface HumanTouch {
  /** Commits on the branch authored or committed by someone else. */
  commits: number;
  /** Reviews that requested changes. */
  change_requests: number;
  /** Review threads opened by people. */
  threads: number;
}

export interface OutcomeRecord {
  issue: number;
  title: string;
  /** The issue's labels when it was last worked (for `report --by label`). */
  labels: string[];
  /** ISO 8601: the first claim of the issue, ever (kept across runs and runners). */
  first_claimed_at: string;
  sessions: SessionEntry[];
  pull?: PullFate;
  /**
   * The issue's earlier pull requests, oldest first: each one a newer PR replaced (closed unmerged,
   * its issue worked again), as the sweep last saw it. Absent when there was none.
   */
  earlier_pulls?: PullFate[];
  touch: HumanTouch;
}

/** Every pull request of the issue, oldest first: the earlier ones, then the current one. */
export function pullsOf(record: Pick<OutcomeRecord, 'pull' | 'earlier_pulls'>): PullFate[] {
  return [...(record.earlier_pulls ?? []), ...(record.pull ? [record.pull] : [])];
}

/** Merged with no human commit and no change request: the PR was accepted as issueloop wrote it. */
export function zeroTouch(record: Pick<OutcomeRecord, 'pull' | 'touch'>): boolean {
  return record.pull?.state === 'merged' && record.touch.commits === 0 && record.touch.change_requests === 0;
}

/** Everything spent on the issue, every session of every run. */
export function spentUsd(record: Pick<OutcomeRecord, 'sessions'>): number {
  return record.sessions.reduce((sum, s) => sum + s.usd, 0);
}
