import type { ClaimView } from '../../claims/claim-store.js';
import type { IssueComment } from '../../github/comment-commands.js';
import { PLAN_LABEL } from '../../github/labels.js';
import { withdrawnPlanComment } from '../../github/plan-comment.js';
import type { SweepRound } from '../../scheduler/work-source.js';
import type { IssueSourceOptions } from './options.js';
import { PLAN_APPROVED, PLAN_REQUESTED, PLAN_REVIEW, PLAN_REVISE, PLAN_WITHDRAWN } from './plan-outcomes.js';
import { workedAnswer } from './plan-stage.js';

/** How long the sweep holds an issue while it books a plan state (a claim, then a release). */
const BOOKING_TTL_MS = 60_000;

/**
 * How often the sweep looks for expired plans: expiry is counted in days, and each look reads every
 * waiting plan's claim record and comment.
 */
export const EXPIRE_CHECK_MS = 10 * 60_000;

/**
 * Thrown when a session holds the issue (the plan session that is posting its plan, another runner
 * booking): the command is not decided, and the next round tries it again.
 */
export class PlanBookingHeld extends Error {
  override name = 'PlanBookingHeld';
  constructor(
    readonly issue: number,
    readonly owner: string,
  ) {
    super(`#${issue} is held by ${owner}`);
  }
}

type Options = Pick<IssueSourceOptions, 'github' | 'clock' | 'config' | 'redact'>;

/**
 * Books `outcome` if the record, read again under the claim, still says one of `from` (another
 * runner may have booked an answer since the sweep read it): false, and the record as it was, if not.
 */
async function book(
  round: SweepRound,
  issue: number,
  outcome: string,
  from: readonly string[],
): Promise<boolean> {
  const claimed = await round.claims.claim(issue, round.owner, BOOKING_TTL_MS);
  if (!claimed.ok) throw new PlanBookingHeld(issue, claimed.heldBy.owner);
  const view = await round.claims.get(issue);
  const fresh = view?.last_outcome ?? undefined;
  if (fresh !== undefined && from.includes(fresh)) {
    await round.claims.release(claimed.lease, { outcome });
    return true;
  }
  // Put back as it was, with what the next attempt is told (an interruption's context, a hint).
  await round.claims.release(claimed.lease, {
    outcome: fresh ?? PLAN_REQUESTED,
    ...(view?.partial_context ? { partialContext: view.partial_context } : {}),
    ...(view?.hint ? { hint: view.hint } : {}),
  });
  return false;
}

/**
 * The plan's part of the command sweep: `/approve` and `/revise` answer the issue's newest plan
 * while it waits (a command written before it, or with no plan waiting, is not answered);
 * `/issueloop plan` labels the issue `issueloop:plan` and, when a plan waits or was withdrawn, asks
 * for a new one. Each changes the claim record's last outcome, booked as the pull sweep books: the
 * issue claimed, then released with the new state, so a running session is never overwritten.
 * `expire` withdraws the plans nobody answered within `plan.expires`.
 */
export function planSweep(options: Options) {
  const { github } = options;
  /** When the sweep last looked for expired plans (undefined: not yet this run). */
  let lookedAt: number | undefined;
  /** The issues whose plan waited for review when the last round planned (from its claim records). */
  let waiting: readonly number[] = [];

  /** Answers `/approve` or `/revise`; false when there is nothing to answer (no reaction then). */
  async function answer(
    round: SweepRound,
    command: 'approve' | 'revise',
    comment: IssueComment,
    issue: number,
  ): Promise<boolean> {
    const claim = await round.claims.get(issue);
    // While a session holds the issue its outcome is not known yet (a plan session's plan may be
    // posted already): the command waits for the lease to end rather than being turned away.
    if (claim?.lease && Date.parse(claim.lease.expires_at) > options.clock.now()) {
      throw new PlanBookingHeld(issue, claim.lease.owner);
    }
    if (claim?.last_outcome !== PLAN_REVIEW) return false;
    const thread = await github.plans.read(issue, await github.commands.viewerLogin());
    // Only a command written after the newest plan answers it.
    if (!thread.plan || thread.plan.withdrawn || comment.id < thread.plan.id) return false;
    return book(round, issue, command === 'approve' ? PLAN_APPROVED : PLAN_REVISE, [PLAN_REVIEW]);
  }

  async function askForPlan(round: SweepRound, issue: number): Promise<boolean> {
    await github.labels.ensureLabel(PLAN_LABEL);
    await github.labels.addLabels(issue, [PLAN_LABEL]);
    await requeueWithdrawn(round, issue, [PLAN_REVIEW, PLAN_WITHDRAWN]);
    return true;
  }

  /** A withdrawn (or waiting) plan's issue made claimable for a new plan. */
  async function requeueWithdrawn(round: SweepRound, issue: number, from: readonly string[]): Promise<void> {
    const claim = await round.claims.get(issue);
    if (claim?.last_outcome && from.includes(claim.last_outcome))
      await book(round, issue, PLAN_REQUESTED, from);
  }

  async function expireOne(round: SweepRound, view: ClaimView): Promise<void> {
    const me = await github.commands.viewerLogin();
    const thread = await github.plans.read(view.issue, me);
    const posted = Date.parse(thread.plan?.createdAt ?? '');
    if (!thread.plan || thread.plan.withdrawn || Number.isNaN(posted)) return;
    if (options.clock.now() - posted < options.config.plan.expires) return;
    // Answered before (issueloop's 👍 on it) by a runner whose booking is lost, older than the
    // command sweep's look-back: that answer is booked, and the plan is not withdrawn.
    const answered = await workedAnswer(github, thread, me);
    if (answered) {
      const outcome = answered.command === 'approve' ? PLAN_APPROVED : PLAN_REVISE;
      if (await book(round, view.issue, outcome, [PLAN_REVIEW]))
        round.log.info(
          { issue: view.issue },
          `booked the earlier /${answered.command} of #${view.issue}'s plan`,
        );
      return;
    }
    // Booked first: a plan answered meanwhile (by another runner) is neither withdrawn nor marked so.
    if (!(await book(round, view.issue, PLAN_WITHDRAWN, [PLAN_REVIEW]))) return;
    try {
      await github.plans.edit(
        view.issue,
        thread.plan.id,
        withdrawnPlanComment(thread.plan.body, options.config.plan.expires),
      );
    } catch (err) {
      // The comment still asks for an answer: the plan waits again, and the next look withdraws it.
      await book(round, view.issue, PLAN_REVIEW, [PLAN_WITHDRAWN]);
      throw err;
    }
    await round.ledger.append('plan_withdrawn', {
      round: round.round,
      issue: view.issue,
      comment: thread.plan.id,
    });
    round.log.info({ issue: view.issue }, `withdrew the plan of #${view.issue}: nobody answered it in time`);
  }

  return {
    /** Works a writer's plan command on `issue`; false when it is not to be answered. */
    work(round: SweepRound, command: 'plan' | 'approve' | 'revise', comment: IssueComment, issue: number) {
      return command === 'plan' ? askForPlan(round, issue) : answer(round, command, comment, issue);
    },

    /** `/issueloop retry` on a withdrawn plan asks for a new one. */
    retried: (round: SweepRound, issue: number) => requeueWithdrawn(round, issue, [PLAN_WITHDRAWN]),

    /** What the round's plan read: the plans that wait, so expiry never lists the whole store. */
    seen(claims: ReadonlyMap<number, ClaimView>): void {
      waiting = [...claims.values()].filter((view) => view.last_outcome === PLAN_REVIEW).map((v) => v.issue);
    },

    /** Withdraws the plans left unanswered for `plan.expires` (a look every EXPIRE_CHECK_MS at most). */
    async expire(round: SweepRound): Promise<void> {
      const now = options.clock.now();
      if (waiting.length === 0 || (lookedAt !== undefined && now - lookedAt < EXPIRE_CHECK_MS)) return;
      lookedAt = now;
      for (const issue of waiting) {
        try {
          const view = await round.claims.get(issue);
          if (view?.last_outcome === PLAN_REVIEW) await expireOne(round, view);
        } catch (err) {
          // The sweep never fails a round: a store or GitHub that is away is the round's to report.
          round.log.warn(
            { issue, err: options.redact((err as Error).message) },
            'could not check whether the plan expired; tried again later',
          );
        }
      }
    },
  };
}
