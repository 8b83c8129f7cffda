import type { ClaimStore } from '../../claims/claim-store.js';
import type { CommentCommand, IssueComment } from '../../github/comment-commands.js';
import { commandText, DONE_REACTION, parseCommand } from '../../github/comment-commands.js';
import { NEEDS_HUMAN_LABEL } from '../../github/labels.js';
import { canWrite, type TrustGate } from '../../github/trust.js';
import type { SweepRound } from '../../scheduler/work-source.js';
import { labelNeedsHuman } from './issue-tracker.js';
import type { IssueSourceOptions } from './options.js';
import { PlanBookingHeld, planSweep } from './plan-sweep.js';
import { sameAccount } from './review-requests.js';

/** How far back a run that has not read comments yet looks for commands nobody answered. */
export const COMMAND_LOOKBACK_MS = 7 * 24 * 60 * 60_000;
/**
 * The read starts where it started last round (the same URL: a 304 while nothing changed) until it
 * lists this many comments; then it moves to the newest, which costs one full read.
 */
export const MOVE_SINCE_AFTER = 50;
const DAY_MS = 24 * 60 * 60_000;

type Decided = 'done' | 'ignored';

/**
 * Commands in comments, read at the start of each round: the repository's comments since the last
 * one read (one conditional request: a 304 in an idle round), each command from someone with write
 * access on an issue or on issueloop's own PR worked once and answered with a 👍. A comment already
 * carrying issueloop's 👍 was worked by an earlier run; commands from anyone else are ignored, and
 * never answered. `retry` clears the issue's failures and the needs-human label; `stop` ends any
 * lease on it (the session holding it stops at its next renewal) and labels it needs-human, which
 * keeps it out of the backlog (exclude_labels) until a person removes the label or says retry.
 */
export function commandSweep(
  options: Pick<IssueSourceOptions, 'github' | 'redact' | 'clock' | 'command' | 'config'>,
) {
  const { github } = options;
  const plans = planSweep(options);
  /** Comments decided this run: worked, ignored, or no command at all. */
  const decided = new Set<number>();
  let since: string | undefined;

  async function decide(
    comment: IssueComment,
    command: CommentCommand,
    gate: TrustGate,
    round: SweepRound,
  ): Promise<Decided> {
    // issueloop's own comments command nothing, whatever they quote (its account has write access).
    const me = await github.commands.viewerLogin();
    if (sameAccount(comment.author, me)) return 'ignored';
    const permission = await gate.permission(comment.author);
    if (!canWrite(permission)) {
      round.log.info(
        { comment: comment.id, by: comment.author },
        `ignored ${commandText(command)} from ${comment.author} (permission ${permission})`,
      );
      return 'ignored';
    }
    const target = await github.commands.target(comment.number);
    if ('ignore' in target) return 'ignored';
    const reactors = await github.commands.reactors(comment.id, DONE_REACTION);
    if (reactors.some((login) => login.toLowerCase() === me.toLowerCase())) {
      // Worked before, maybe by a runner whose state is gone (its booking with it): an answer to a
      // plan the record still says waits is booked again. It answers nothing otherwise.
      if (command === 'approve' || command === 'revise')
        await plans.work(round, command, comment, target.issue);
      return 'done';
    }
    if (command === 'retry' || command === 'stop') {
      await (command === 'retry' ? retry : stop)(round.claims, target.issue);
      if (command === 'retry') await plans.retried(round, target.issue);
    } else if (!(await plans.work(round, command, comment, target.issue))) {
      round.log.info(
        { issue: target.issue },
        `/${command} from ${comment.author}: no plan of #${target.issue} waits for it`,
      );
      return 'ignored';
    }
    await github.commands.react(comment.id, DONE_REACTION);
    await round.ledger.append('command', {
      round: round.round,
      issue: target.issue,
      command,
      comment: comment.id,
      by: comment.author,
    });
    round.log.info({ issue: target.issue }, `worked ${commandText(command)} from ${comment.author}`);
    return 'done';
  }

  async function retry(claims: ClaimStore, issue: number): Promise<void> {
    await claims.resetFailures(issue);
    await github.labels.removeLabel(issue, NEEDS_HUMAN_LABEL);
  }

  async function stop(claims: ClaimStore, issue: number): Promise<void> {
    await labelNeedsHuman(github.labels, issue);
    await claims.forceRelease(issue);
  }

  async function sweepCommands(round: SweepRound): Promise<void> {
    await sweepComments(round);
  }
  // Expiry runs after the round's plan, which says which plans wait: a sweep before it would see
  // none in a process's first round, and a one-round run (the action's) would never expire a plan.
  return Object.assign(sweepCommands, { seen: plans.seen, expire: plans.expire });

  async function sweepComments(round: SweepRound): Promise<void> {
    // Whole days, so a new process on the same state directory repeats yesterday's URL (and ETag).
    const start = Math.floor((options.clock.now() - COMMAND_LOOKBACK_MS) / DAY_MS) * DAY_MS;
    const from = since ?? new Date(start).toISOString();
    let listed: IssueComment[];
    try {
      // The action's run for one comment's command works that comment, and only it.
      listed = options.command ? [options.command] : (await github.commands.since(from)).comments;
    } catch (err) {
      round.log.warn({ err: options.redact((err as Error).message) }, 'could not read new comments');
      return;
    }
    const gate = github.trustGate();
    let undecided: string | undefined;
    for (const comment of listed) {
      if (decided.has(comment.id)) continue;
      const command = parseCommand(comment.body);
      if (!command) {
        decided.add(comment.id);
        continue;
      }
      try {
        await decide(comment, command, gate, round);
        decided.add(comment.id);
      } catch (err) {
        round.log.warn(
          { err: options.redact((err as Error).message), comment: comment.id },
          err instanceof PlanBookingHeld
            ? `${commandText(command)} from ${comment.author} waits for the session holding #${err.issue} (${err.owner}); it is answered once that session ends`
            : `could not work ${commandText(command)}; it is tried again next round`,
        );
        undecided ??= comment.updatedAt;
      }
    }
    // The oldest comment still to be worked holds the start; a long listing moves it to the newest
    // comment (GitHub's `since` includes it); otherwise it stays, and so does the URL.
    const newest = listed.at(-1)?.updatedAt;
    since = undecided ?? (newest && listed.length >= MOVE_SINCE_AFTER ? newest : from);
  }
}
