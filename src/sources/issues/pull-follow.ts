import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import { type FailureDetail, readFailureDetails } from '../../github/ci-failures.js';
import type { PullDetail } from '../../github/pr-watch.js';
import { canWrite, type TrustGate } from '../../github/trust.js';
import type { SweepRound } from '../../scheduler/work-source.js';
import type { FollowUp } from './follow-up.js';
import type { InOrder } from './issue-tracker.js';
import { describeDecision, type OpenPullState } from './open-pulls.js';
import type { IssueSourceOptions } from './options.js';
import { sweepPulls } from './pull-sweep.js';
import { type ReviewRequest, waitingRequests } from './review-requests.js';

/**
 * issueloop's pull requests followed across the rounds of a run: the sweep at the start of each
 * round, each open PR's state in the ledger when it changes, and the follow-ups the round may claim
 * (with what failed, read once per head commit, and the review threads, read only when the PR
 * changed).
 */
export function followPulls(options: IssueSourceOptions, inOrder?: InOrder) {
  const { github } = options;
  /** What each open PR needed when last recorded. */
  const seen = new Map<number, string>();
  const followUps = new Map<number, FollowUp>();
  const failuresBySha = new Map<string, FailureDetail[]>();
  const reviewsByPull = new Map<number, { seen: string; requests: ReviewRequest[] }>();
  const historyChecked = new Set<number>();
  const outcomesImported = new Set<number>();
  /** As the last sweep that could list them saw it (kept when a sweep fails). */
  let withOpenPull = new Set<number>();

  /** A PR's waiting review threads; GraphQL is asked only when the PR changed since the last read. */
  const readReviews = (gate: TrustGate, readThreads: ThreadReader) => async (pull: PullDetail) => {
    // updated_at has whole seconds: the counts and the answered reviews (the body's marker, which a
    // follow-up's push rewrites) also say the PR changed within the same second.
    const seenAs = `${pull.updatedAt} ${pull.reviewComments} ${pull.followups} ${pull.answeredReviews.join(',')}`;
    const cached = reviewsByPull.get(pull.number);
    if (cached?.seen === seenAs) return cached.requests;
    const read = await readThreads(pull.number);
    const self = await github.reviewThreads.viewer();
    const requests = await waitingRequests(read, {
      self,
      mayWrite: async (login) => canWrite(await gate.permission(login)),
      answered: pull.answeredReviews,
    });
    reviewsByPull.set(pull.number, { seen: seenAs, requests });
    return requests;
  };

  /** When the last sweep ran: rounds come whenever a session ends, the sweep at most this often. */
  let sweptAt: number | undefined;

  return {
    async sweep(round: SweepRound): Promise<void> {
      const now = options.clock.now();
      if (sweptAt !== undefined && now - sweptAt < options.config.pr.watch_interval) return;
      sweptAt = now;
      try {
        // A changed open PR's threads serve its follow-up and its outcome record: one read a sweep.
        const readThreads = onceEach(github.reviewThreads.read);
        const swept = await sweepPulls({
          ...options,
          github: { ...github, reviewThreads: { ...github.reviewThreads, read: readThreads } },
          claims: round.claims,
          ledger: round.ledger,
          log: round.log,
          owner: round.owner,
          now: () => options.clock.now(),
          reviews: readReviews(github.trustGate(), readThreads),
          historyChecked,
          outcomesImported,
          ...(inOrder ? { inOrder } : {}),
        });
        withOpenPull = swept.withOpenPull;
        await recordPullStates(swept.open, seen, round);
        if (options.config.pr.ready_when_green) await markGreenReady(options, swept.open, round);
        await collectFollowUps(github.client, swept.open, {
          followUps,
          failuresBySha,
          log: round.log,
          redact: options.redact,
        });
      } catch (err) {
        round.log.warn(
          { err: options.redact((err as Error).message) },
          'the pull request sweep failed; next round',
        );
      }
    },
    /** Issues whose PR needs a follow-up now. */
    pending: (): Set<number> => new Set(followUps.keys()),
    /** Issues with an open PR of issueloop's: worked only as its follow-ups. */
    withOpenPull: (): ReadonlySet<number> => withOpenPull,
    /** The follow-up a session takes on: taken once (a sweep must see the PR again first). */
    takeFollowUp(issue: number): FollowUp | undefined {
      const followUp = followUps.get(issue);
      followUps.delete(issue);
      return followUp;
    },
  };
}

/** An open PR's state in the ledger and the log, when it differs from what was last recorded. */
async function recordPullStates(
  states: readonly OpenPullState[],
  seen: Map<number, string>,
  round: Pick<SweepRound, 'ledger' | 'log'>,
): Promise<void> {
  for (const state of states) {
    const { pull, checks, decision } = state;
    const detail = describeDecision(state);
    if (seen.get(pull.issue) === detail) continue;
    seen.set(pull.issue, detail);
    await round.ledger.append('pull_request', {
      issue: pull.issue,
      pr: pull.url,
      state: 'open',
      decision: decision.kind,
      checks: checks.state,
      mergeable: pull.mergeable,
      followups: pull.followups,
      ...(checks.ignored.length > 0 ? { ignored_checks: checks.ignored.length } : {}),
      detail,
    });
    round.log.info({ issue: pull.issue, pr: pull.url }, `#${pull.issue}'s pull request: ${detail}`);
  }
}

/**
 * The follow-ups the next rounds may claim: each open PR whose base moved (conflicting, or behind a
 * protected base), whose checks failed, with what failed (its annotations and log, read once per
 * head commit), or with review threads waiting. A PR that no longer needs one drops out.
 */
async function collectFollowUps(
  client: IssueSourceOptions['github']['client'],
  states: readonly OpenPullState[],
  into: {
    followUps: Map<number, FollowUp>;
    failuresBySha: Map<string, FailureDetail[]>;
    log: Log;
    redact: Redactor;
  },
): Promise<void> {
  into.followUps.clear();
  for (const { pull, decision, reviews } of states) {
    if (decision.kind === 'conflict' || decision.kind === 'behind') {
      into.followUps.set(pull.issue, { pull, failures: [], reviews: [], base: { moved: decision.kind } });
      continue;
    }
    if (decision.kind === 'changes_requested') {
      into.followUps.set(pull.issue, { pull, failures: [], reviews });
      continue;
    }
    if (decision.kind !== 'ci_failed') continue;
    let failures = into.failuresBySha.get(pull.headSha);
    if (failures === undefined) {
      try {
        failures = await readFailureDetails(client, decision.failed);
      } catch (err) {
        into.log.warn(
          { err: into.redact((err as Error).message), pr: pull.number },
          'could not read what failed; next round',
        );
        continue;
      }
      into.failuresBySha.set(pull.headSha, failures);
    }
    into.followUps.set(pull.issue, { pull, failures, reviews: [] });
  }
}

/**
 * `pr.ready_when_green`: a draft whose checks ran and passed and whose review threads are answered
 * becomes ready for review, and `pr.reviewers` are asked then. A refusal is logged; the
 * next round tries again.
 */
async function markGreenReady(
  options: IssueSourceOptions,
  states: readonly OpenPullState[],
  round: Pick<SweepRound, 'ledger' | 'log'>,
): Promise<void> {
  for (const { pull, checks, decision } of states) {
    // Checks must have run and passed: right after a push GitHub has not created them yet, and "no
    // checks" then would mark a PR ready before its CI ran.
    if (decision.kind !== 'green' || checks.state !== 'passed' || !pull.draft) continue;
    try {
      await options.github.pulls.markReady(pull.nodeId);
      await options.github.pulls.requestReviewers(pull.number, options.config.pr.reviewers);
      await round.ledger.append('pull_request', {
        issue: pull.issue,
        pr: pull.url,
        state: 'open',
        detail: 'ready for review',
      });
      round.log.info(
        { issue: pull.issue, pr: pull.url },
        `#${pull.issue}'s pull request is ready for review`,
      );
    } catch (err) {
      round.log.warn(
        { err: options.redact((err as Error).message), pr: pull.number },
        'could not mark the pull request ready for review; next round',
      );
    }
  }
}

type ThreadReader = GitHubAdapter['reviewThreads']['read'];

/** `read`, asked at most once per pull request (the same answer, or failure, for every caller). */
function onceEach(read: ThreadReader): ThreadReader {
  const reads = new Map<number, ReturnType<ThreadReader>>();
  return (pull) => {
    let answer = reads.get(pull);
    if (!answer) {
      answer = read(pull);
      reads.set(pull, answer);
    }
    return answer;
  };
}
