import { commandText } from '../github/comment-commands.js';
import type { OpenRunInput, RunBase } from '../run/open-run.js';
import type { RunSummary } from '../scheduler/run-rounds.js';
import type { CommandEvent, Decision } from './event.js';

type IssueDecision = Extract<Decision, { kind: 'issue' }>;

/** Why the round for `/issueloop stop` claims nothing (shown as the issue's skip reason). */
export const STOP_CLAIMS_NOTHING = 'a /issueloop stop runs no session';

/**
 * The issue a command's comment is about: the issue it is on, or, on a pull request, the issue
 * whose issueloop PR it is (one conditional read of the PR: the event's payload has no head ref).
 * A comment on anyone else's PR is no command of issueloop's: a skip.
 */
export async function commandIssue(
  base: Pick<RunBase, 'github'>,
  decision: IssueDecision & { command: CommandEvent },
): Promise<IssueDecision | { kind: 'skip'; why: string }> {
  if (!decision.command.onPull) return decision;
  const target = await base.github.commands.target(decision.issue);
  if ('ignore' in target) return { kind: 'skip', why: target.ignore };
  return { ...decision, issue: target.issue };
}

/**
 * What the round for a command does beyond its sweep: the sweep works the event's comment alone
 * (the commenter's permission checked again there, and the 👍 that answers it); `retry` then works
 * the issue in the same job, as its trigger label would; `stop` claims nothing.
 */
export function commandRunInput(command: CommandEvent): Pick<OpenRunInput, 'command' | 'claimNothing'> {
  return {
    command: command.comment,
    ...(command.name === 'stop' ? { claimNothing: STOP_CLAIMS_NOTHING } : {}),
  };
}

/** The notice for a command's run that worked no session, or nothing to add. */
export function commandNotice(
  decision: IssueDecision & { command: CommandEvent },
  summary: Pick<RunSummary, 'reports' | 'skipped'>,
): string | undefined {
  const { name, comment } = decision.command;
  const said = `${commandText(name)} from ${comment.author}`;
  if (name === 'stop') {
    return `#${decision.issue}: ${said}: no session runs; a 👍 on the comment says the issue was released and labelled needs-human`;
  }
  if (summary.reports.length > 0) return undefined;
  const skip = summary.skipped.find((s) => s.issue === decision.issue);
  const why = skip
    ? skip.why
    : 'it is not in the backlog (closed, or without the trigger label, or carrying an excluded label)';
  return `#${decision.issue}: ${said}: back in the queue, not worked in this job: ${why}`;
}
