import { checkIssue } from './create-claim-store.js';
import type { HumanTouch, OutcomeRecord, PullFate, SessionEntry } from './outcome-record.js';

/**
 * Outcome records beside the claims (file `outcomes.json`, Redis keys, or memory for tests): what
 * each issue's sessions cost and what became of its pull request. Every store passes the contract
 * suite in test/claims/outcome-store-contract.ts.
 */

/** How many sessions a record keeps: the newest, so a long-lived issue's record stays small. */
export const MAX_SESSIONS = 100;

/** What the run knows of the issue when a session ends. */
export interface SessionMeta {
  title: string;
  labels: readonly string[];
  /** ISO 8601: when this session's claim was taken; becomes `first_claimed_at` of a new record. */
  claimedAt: string;
}

export interface OutcomeStore {
  get(issue: number): Promise<OutcomeRecord | undefined>;
  /** Every record, by issue number: the input of `issueloop report`. */
  list(): Promise<OutcomeRecord[]>;
  /**
   * Appends a finished session (the newest MAX_SESSIONS are kept), creating the record on the first
   * one; `first_claimed_at` is set then and never moved; title and labels follow the issue.
   */
  recordSession(issue: number, entry: SessionEntry, meta: SessionMeta): Promise<OutcomeRecord>;
  /**
   * The pull request's fate and the human touch as the sweep last counted them. A merged PR stays
   * merged whatever an older read says. False (nothing written) for an issue the store has no record
   * of: import it first.
   */
  recordPull(issue: number, fate: PullFate, touch: HumanTouch): Promise<boolean>;
  /** Takes a record read back from GitHub for an issue this store does not know; true when taken. */
  importRecord(issue: number, record: OutcomeRecord): Promise<boolean>;
  close(): Promise<void>;
}

/** One read-modify-write of one issue's record, atomic against every other writer of the store. */
export interface OutcomeBackend {
  update<T>(
    issue: number,
    fn: (current: OutcomeRecord | undefined) => { result: T; next?: OutcomeRecord },
  ): Promise<T>;
  get(issue: number): Promise<OutcomeRecord | undefined>;
  list(): Promise<OutcomeRecord[]>;
  close(): Promise<void>;
}

/** The record after one more session. */
export function withSession(
  current: OutcomeRecord | undefined,
  issue: number,
  entry: SessionEntry,
  meta: SessionMeta,
): OutcomeRecord {
  const base: OutcomeRecord = current ?? {
    issue,
    title: meta.title,
    labels: [],
    first_claimed_at: meta.claimedAt,
    sessions: [],
    touch: { commits: 0, change_requests: 0, threads: 0 },
  };
  return {
    ...base,
    title: meta.title,
    labels: [...meta.labels],
    sessions: [...base.sessions, { ...entry, models: [...entry.models] }].slice(-MAX_SESSIONS),
  };
}

/**
 * A PR a newer one of the same issue replaced: kept, so a PR closed unmerged still counts once its
 * issue is worked again. One last seen open was closed since (a branch has one open PR at a time).
 */
function replaced(kept: PullFate): PullFate {
  return kept.state === 'open' ? { ...kept, state: 'closed' } : { ...kept };
}

/**
 * The record with the sweep's view of its PR; undefined when nothing changes. A PR of another number
 * becomes the current one, the one it replaces goes to `earlier_pulls`.
 */
export function withPull(
  current: OutcomeRecord,
  fate: PullFate,
  touch: HumanTouch,
): OutcomeRecord | undefined {
  const kept = current.pull;
  // A merge is final: a read from before it (another runner's, a cached one) does not undo it.
  if (kept?.state === 'merged' && kept.number === fate.number && fate.state !== 'merged') return undefined;
  // PR numbers only grow: a late read of a PR the issue has moved on from does not bring it back.
  if (kept && fate.number < kept.number) return undefined;
  const next: OutcomeRecord = { ...current, pull: { ...fate }, touch: { ...touch } };
  if (kept && kept.number !== fate.number)
    next.earlier_pulls = [...(current.earlier_pulls ?? []), replaced(kept)];
  return JSON.stringify(next) === JSON.stringify(current) ? undefined : next;
}

function checkRecord(issue: number, record: OutcomeRecord): void {
  checkIssue(issue);
  if (record.issue !== issue) {
    throw new Error(`an outcome record for #${record.issue} cannot be stored as #${issue}`);
  }
}

/** The `OutcomeStore` API on any backend that can update one record atomically. */
export function createOutcomeStore(backend: OutcomeBackend): OutcomeStore {
  return {
    async get(issue) {
      checkIssue(issue);
      return backend.get(issue);
    },
    list: () => backend.list(),
    async recordSession(issue, entry, meta) {
      checkIssue(issue);
      return backend.update(issue, (current) => {
        const next = withSession(current, issue, entry, meta);
        return { result: next, next };
      });
    },
    async recordPull(issue, fate, touch) {
      checkIssue(issue);
      return backend.update(issue, (current) => {
        if (!current) return { result: false };
        const next = withPull(current, fate, touch);
        return next ? { result: true, next } : { result: true };
      });
    },
    async importRecord(issue, record) {
      checkRecord(issue, record);
      return backend.update(issue, (current) =>
        current
          ? { result: false }
          : {
              result: true,
              next: { ...structuredClone(record), sessions: record.sessions.slice(-MAX_SESSIONS) },
            },
      );
    },
    close: () => backend.close(),
  };
}
