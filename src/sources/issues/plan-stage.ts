import type { Config } from '../../config/schema.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import { DONE_REACTION, parseCommand, reviseRequest } from '../../github/comment-commands.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import { PLAN_LABEL } from '../../github/labels.js';
import { renderPlanComment } from '../../github/plan-comment.js';
import type { PlanThread } from '../../github/plan-comments.js';
import { sanitizeIssueText } from '../../github/sanitize.js';
import { clip } from '../../github/text-limits.js';
import type { PlanStep } from '../../session/session-work.js';

/** The most of a maintainer's `/revise` request a plan session is given. */
const MAX_REQUEST = 4_000;

/**
 * Where an issue that needs a plan stands, read from GitHub when it is claimed: no plan (or a
 * withdrawn one, or one nobody answered) → write one; a `/revise` → write a new one from the old
 * plan and the request; an `/approve` → implement the approved plan. Only commands issueloop worked
 * (its 👍 on them, which the sweep leaves after checking write access) after the newest plan count.
 */
export type PlanStage =
  | { kind: 'plan' }
  | { kind: 'revise'; previous: string; request: string }
  | { kind: 'approved'; plan: string };

/** Whether an issue's first attempt starts with a plan (follow-ups on its PR never do). */
export function needsPlan(issue: Pick<BacklogIssue, 'labels'>, config: Pick<Config, 'plan'>): boolean {
  return config.plan.required || issue.labels.some((label) => label.toLowerCase() === PLAN_LABEL);
}

/**
 * The newest `/approve` or `/revise` after the thread's plan that issueloop worked (its 👍, left only
 * after checking the author's write access, by this runner or an earlier one); undefined if none.
 */
export async function workedAnswer(
  github: Pick<GitHubAdapter, 'commands'>,
  thread: PlanThread,
  me: string,
): Promise<{ command: 'approve' | 'revise'; body: string } | undefined> {
  for (const comment of [...thread.after].reverse()) {
    const command = parseCommand(comment.body);
    if (command !== 'approve' && command !== 'revise') continue;
    const reactors = await github.commands.reactors(comment.id, DONE_REACTION);
    if (reactors.some((login) => login.toLowerCase() === me.toLowerCase()))
      return { command, body: comment.body };
  }
  return undefined;
}

export async function readPlanStage(
  github: Pick<GitHubAdapter, 'plans' | 'commands'>,
  issue: number,
): Promise<PlanStage> {
  const me = await github.commands.viewerLogin();
  const thread = await github.plans.read(issue, me);
  if (!thread.plan || thread.plan.withdrawn) return { kind: 'plan' };
  const answer = await workedAnswer(github, thread, me);
  if (!answer) return { kind: 'plan' };
  if (answer.command === 'approve') return { kind: 'approved', plan: thread.plan.text };
  const request = sanitizeIssueText(reviseRequest(answer.body) ?? '').text;
  return { kind: 'revise', previous: thread.plan.text, request: clip(request, MAX_REQUEST) };
}

const PLAN_ASK = [
  'Before any change is made, a maintainer reviews a plan. This session only reads: explore the',
  'repository with the reading tools, change nothing, and end with the plan as your final message:',
  'what you will change, in which files, and how you will check it (the tests you will add or run).',
  'Keep it short and concrete; it is posted on the issue as it is. Write no plan file and submit it',
  'with no tool (a plan mode may ask for both; here neither is possible): the final message is the plan.',
].join('\n');

/** What the session is told beyond the issue, by its stage. */
export function planNote(stage: PlanStage): string {
  const plan = (text: string) => sanitizeIssueText(text).text;
  switch (stage.kind) {
    case 'plan':
      return `## Write a plan\n\n${PLAN_ASK}`;
    case 'revise':
      return [
        '## Write a revised plan',
        '',
        PLAN_ASK,
        '',
        '### The previous plan',
        '',
        plan(stage.previous),
        '',
        '### What the maintainer asked to change',
        '',
        stage.request === '' ? '(No details given: propose a better plan.)' : stage.request,
      ].join('\n');
    case 'approved':
      return `## The approved plan\n\nA maintainer approved this plan; carry it out.\n\n${plan(stage.plan)}`;
  }
}

/** Where a plan session's plan goes: a comment on the issue, with the marker and how to answer. */
export function planStep(
  github: Pick<GitHubAdapter, 'plans'>,
  issue: number,
  config: Pick<Config, 'plan'>,
  redact: Redactor,
): PlanStep {
  return {
    async post(plan) {
      const body = renderPlanComment({ issue, plan, expiresMs: config.plan.expires, redact });
      const id = await github.plans.post(issue, body);
      return `plan posted for review (comment ${id})`;
    },
  };
}
