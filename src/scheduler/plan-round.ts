/** Work that failed this often goes behind every other candidate (design.md). */
export const DEPRIORITISE_AFTER_FAILURES = 3;

export type SkipReason =
  | { kind: 'leased'; owner: string; until: string }
  | { kind: 'needs_human'; failures: number }
  | { kind: 'in_review' }
  | { kind: 'merged' }
  | { kind: 'pull_needs_human'; why: string }
  | { kind: 'untrusted'; why: string }
  | { kind: 'completed' }
  | { kind: 'waiting'; on: string }
  | { kind: 'deferred'; why: string }
  /** Its plan waits for a maintainer's `/approve` or `/revise`; withdrawn: nobody answered in time. */
  | { kind: 'plan_review' }
  | { kind: 'plan_withdrawn' }
  /** Waits for other issues to close; `unreadable` ones (the token cannot see them) count as open. */
  | { kind: 'blocked'; by: ReadonlyArray<{ ref: string; state: 'open' | 'unreadable' }> };

export interface RoundPlan<T> {
  /** Claimable items in the order they are worked; the round claims the first `workers`. */
  candidates: T[];
  skipped: Array<{ issue: T; reason: SkipReason }>;
}

export function describeSkip(reason: SkipReason): string {
  switch (reason.kind) {
    case 'leased':
      return `leased by ${reason.owner} until ${reason.until}`;
    case 'needs_human':
      return `needs a human after ${reason.failures} ${reason.failures === 1 ? 'failure' : 'failures'}`;
    case 'in_review':
      return 'resolved: its pull request awaits review';
    case 'merged':
      return 'merged: its pull request is in';
    case 'pull_needs_human':
      return `needs a human: ${reason.why}`;
    case 'untrusted':
      return `untrusted: ${reason.why}`;
    case 'completed':
      return 'completed: committed on its branch';
    case 'waiting':
      return `waits for ${reason.on}: tasks run in file order`;
    case 'deferred':
      return `left for a later run: ${reason.why}`;
    case 'plan_review':
      return 'its plan waits for a maintainer: /approve or /revise <what to change>';
    case 'plan_withdrawn':
      return 'its plan was withdrawn unanswered: /issueloop plan or /issueloop retry asks for a new one';
    case 'blocked':
      return `blocked by ${reason.by
        .map(
          (b) =>
            `${b.ref} (${b.state === 'open' ? 'open' : 'not readable with this token: counted as open'})`,
        )
        .join(', ')}`;
  }
}

/**
 * Seed 004 task 8: the run ends after `emptyRounds` consecutive rounds with nothing claimable. A
 * round whose backlog could not be fetched is not empty — it says nothing about the backlog.
 */
export function createEmptyRoundMonitor(emptyRounds: number) {
  let streak = 0;
  return {
    /** Records a round; true when the run should stop. */
    record(claimable: number): boolean {
      streak = claimable === 0 ? streak + 1 : 0;
      return streak >= emptyRounds;
    },
    get streak() {
      return streak;
    },
  };
}
