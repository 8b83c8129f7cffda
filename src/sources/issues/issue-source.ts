import type { ClaimView } from '../../claims/claim-store.js';
import type { SessionKind } from '../../claims/outcome-record.js';
import type { Backlog } from '../../github/backlog.js';
import type { Blocker } from '../../github/dependencies.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import { BEST_OF_N_LABEL } from '../../github/labels.js';
import type { TrustDecision } from '../../github/trust.js';
import type { SweepRound, WorkSource } from '../../scheduler/work-source.js';
import { commandSweep } from './command-sweep.js';
import { importCandidateHistory } from './history.js';
import { issueWrites, trackIssue } from './issue-tracker.js';
import { issueWork } from './issue-work.js';
import { namedBacklog } from './named-issues.js';
import type { IssueSourceOptions } from './options.js';
import { keepingOutcomes, sessionKindOf } from './outcome-keeping.js';
import { planRound, planWaitOf } from './plan-issues.js';
import { PLAN_APPROVED } from './plan-outcomes.js';
import { needsPlan } from './plan-stage.js';
import { followPulls } from './pull-follow.js';
import { MERGED } from './pull-sweep.js';

export type { IssueSourceOptions } from './options.js';

/**
 * Trust for the issues a round could claim (leased, needs-human, merged and resolved ones, and those
 * whose plan waits or was withdrawn, cost nothing, unless the PR of a resolved one needs a follow-up:
 * its issue may have been edited since): the label gate per issue, then one GraphQL query for the
 * body edits of those a label vouched for.
 */
export async function readTrust(
  ctx: Pick<IssueSourceOptions, 'github'>,
  backlog: Backlog,
  claims: ReadonlyMap<number, ClaimView>,
  now: number,
  followUps: ReadonlySet<number> = new Set(),
): Promise<Map<number, TrustDecision>> {
  const open = backlog.issues.filter((issue) => {
    const claim = claims.get(issue.number);
    // Leased and needs-human issues are skipped anyway: their trust costs requests for nothing.
    if (claim?.needs_human || claim?.last_outcome === MERGED) return false;
    if (claim?.last_outcome === 'resolved' && !followUps.has(issue.number)) return false;
    // A plan that waits for a maintainer (or was withdrawn) costs nothing while it waits.
    if (planWaitOf(claim, issue.number, followUps)) return false;
    return !(claim?.lease && Date.parse(claim.lease.expires_at) > now);
  });
  return ctx.github.trustGate().checkAll(open);
}

/**
 * What blocks each of `candidates`: GitHub's issue dependencies, and the `Blocked by #N` lines of
 * an issue whose author is trusted (a label vouches for whom to work on, not for what waits).
 */
export function readBlockers(
  github: Pick<IssueSourceOptions['github'], 'dependencies'>,
  backlog: readonly BacklogIssue[],
  candidates: readonly BacklogIssue[],
  trust: ReadonlyMap<number, TrustDecision>,
  followUps: ReadonlySet<number>,
): Promise<Map<number, Blocker[]>> {
  // Trusted for its author's sake, not a labeller's: a login in trusted_authors labelling an
  // outsider's issue is also reason `trusted_author`, with `by` the labeller.
  const authorTrusted = (issue: BacklogIssue) => {
    const decision = trust.get(issue.number);
    return (
      decision?.trusted === true &&
      decision.reason !== 'labeled_by_writer' &&
      decision.by.toLowerCase() === issue.author.toLowerCase()
    );
  };
  return github.dependencies().openBlockers(
    candidates.filter((issue) => !followUps.has(issue.number)),
    { linesTrusted: authorTrusted, openInBacklog: new Set(backlog.map((issue) => issue.number)) },
  );
}

/** Outcomes after which an issue that needs a plan is being implemented, not planned. */
const IMPLEMENTING: ReadonlySet<string> = new Set([PLAN_APPROVED, 'verify_failed', 'no_changes']);

/**
 * Best-of-N after a failure: `n` attempts for an issue whose last attempt ended `verify_failed` or
 * `no_changes`, or that carries `issueloop:best-of-N`; one for everything else, and always one for a
 * follow-up on an open PR.
 */
export function attemptsFor(
  issue: Pick<BacklogIssue, 'number' | 'labels'>,
  claim: Pick<ClaimView, 'last_outcome'> | undefined,
  n: number,
  followUps: ReadonlySet<number>,
  /** The issue needs a plan a maintainer approves: its plan sessions are one attempt each. */
  planFirst = false,
): number {
  if (n <= 1 || followUps.has(issue.number)) return 1;
  // A plan is written once per round of review; only the approved plan's implementation is tried N ways.
  if (planFirst && !IMPLEMENTING.has(claim?.last_outcome ?? '')) return 1;
  const failed = claim?.last_outcome === 'verify_failed' || claim?.last_outcome === 'no_changes';
  const wanted = BEST_OF_N_LABEL.toLowerCase();
  const labelled = issue.labels.some((label) => label.toLowerCase() === wanted);
  return failed || labelled ? n : 1;
}

/**
 * GitHub issues as the backlog: the labelled open issues (ETag-cached), the trust gate, history from
 * tracking comments for a runner with an empty state directory, and a session that ends as a draft
 * PR; the board, the in-progress and needs-human labels and the tracking comment follow each phase.
 */
export function createIssueSource(options: IssueSourceOptions): WorkSource<BacklogIssue> {
  const { github, config } = options;
  /** Issues whose tracking comment was read this run: their history is known. */
  const historyChecked = new Set<number>();
  /** The untrusted reasons already in the ledger, so a reason is recorded once, not every round. */
  const untrustedLogged = new Map<number, string>();
  const writes = issueWrites();
  const pulls = followPulls(options, writes.inOrder);
  const commands = commandSweep(options);
  /** This round's sweep (its claim store and ledger), for the plan expiry that follows the plan. */
  let swept: SweepRound | undefined;
  const named = options.issues ? namedBacklog(github, config, options.issues) : undefined;
  /** What each issue's current session is for (a first attempt or a follow-up), for its outcome record. */
  const kinds = new Map<number, SessionKind>();

  return {
    list: async () => (named ? named.list() : (await github.listBacklog()).issues),

    async plan(issues, initial, round) {
      const backlog = { issues: [...issues] } as Backlog;
      let claims = initial;
      // Plans nobody answered in time are withdrawn now that the round's records say which wait.
      commands.seen(initial);
      if (swept) await commands.expire(swept);
      const pending = pulls.pending();
      const trust = await readTrust(options, backlog, claims, round.now, pending);
      for (const [issue, decision] of trust) {
        if (decision.trusted || untrustedLogged.get(issue) === decision.reason) continue;
        untrustedLogged.set(issue, decision.reason);
        await round.ledger.append('untrusted', { round: round.round, issue, reason: decision.reason });
      }
      let blockers: ReadonlyMap<number, readonly Blocker[]> = new Map();
      const planWith = (known: ReadonlyMap<number, ClaimView>) =>
        planRound({
          issues,
          claims: known,
          trust,
          now: round.now,
          followUps: pending,
          withOpenPull: pulls.withOpenPull(),
          blockers,
          ...(options.followUpsOnly ? { followUpsOnly: true } : {}),
          ...(options.claimNothing ? { claimNothing: options.claimNothing } : {}),
        });
      let plan = planWith(claims);
      // Only the issues the round could claim cost a dependency read (follow-ups are not blocked).
      blockers = await readBlockers(github, issues, plan.candidates, trust, pending);
      plan = planWith(claims);
      const unread = new Set<number>();
      // Imported history can only add records, so the trust read above still covers every candidate.
      for (;;) {
        const history = { ...options, claims: round.store, log: round.log };
        const candidates = plan.candidates.filter((issue) => !unread.has(issue.number));
        const found = await importCandidateHistory(
          history,
          candidates,
          claims,
          historyChecked,
          config.workers,
        );
        for (const issue of found.unread) unread.add(issue);
        if (found.imported.length === 0 && found.unread.length === 0) break;
        if (found.imported.length > 0) {
          await round.ledger.append('history_import', { round: round.round, issues: found.imported });
          claims = new Map((await round.store.list()).map((view) => [view.issue, view]));
          plan = planWith(claims);
        }
      }
      const known = claims;
      return {
        ...plan,
        claims: known,
        // Only issues whose history is known: the store's own, or the comment's read this run.
        claimable: (issue) => known.has(issue.number) || historyChecked.has(issue.number),
      };
    },

    session: (issue) => {
      named?.started(issue.number);
      const followUp = pulls.takeFollowUp(issue.number);
      kinds.set(issue.number, sessionKindOf(followUp));
      return issueWork(issue, options, followUp);
    },

    attempts: (issue, claim) =>
      attemptsFor(issue, claim, config.attempts.n, pulls.pending(), needsPlan(issue, config)),

    track: (issue, input) =>
      keepingOutcomes(trackIssue(options, issue, input, writes.inOrder), options, issue, input, () => {
        const kind = kinds.get(issue.number) ?? 'attempt';
        kinds.delete(issue.number);
        return kind;
      }),

    // Commands first: a stop or a retry holds for the round's plan.
    async sweep(round) {
      swept = round;
      await commands(round);
      await pulls.sweep(round);
    },

    async afterRound(log) {
      await github.board?.retryPending().catch(() => undefined);
      await github
        .flush()
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not save the ETag cache'));
    },

    settle: () => writes.settle(),
  };
}
