import { formatDuration } from '../config/duration.js';
import type { Redactor } from '../core/redact.js';
import { closeOpenFence, untrustedProse } from './pr-body.js';
import { clip } from './text-limits.js';

/**
 * The plan comment: what a plan session proposes, posted on the issue for a maintainer to answer
 * (`/approve`, `/revise <what to change>`). A hidden marker finds it again; only issueloop's own
 * comments carrying it are plans (anyone can paste the marker). The plan is agent prose: redacted,
 * neutralised (no closing keyword, mention or raw HTML works) and bounded, like every harness text.
 */
export const PLAN_MARKER_OPEN = '<!-- issueloop:plan ';
const PLAN_END = '<!-- issueloop:plan-end -->';
const WITHDRAWN_MARKER = '<!-- issueloop:plan-withdrawn -->';
/** The most of a plan the comment holds (GitHub's limit is 65,536). */
export const MAX_PLAN_LENGTH = 30_000;

const DAY_MS = 24 * 3_600_000;

/** `14 days`, or the config's own unit for a period that is not whole days. */
function period(ms: number): string {
  if (ms % DAY_MS !== 0) return formatDuration(ms);
  return ms === DAY_MS ? '1 day' : `${ms / DAY_MS} days`;
}

export function planMarker(issue: number): string {
  return `${PLAN_MARKER_OPEN}${issue} -->`;
}

export function renderPlanComment(input: {
  issue: number;
  plan: string;
  expiresMs: number;
  redact: Redactor;
}): string {
  const text = input.plan.trim() === '' ? '_(the session wrote no plan)_' : input.plan.trim();
  const body = closeOpenFence(untrustedProse(clip(input.redact(text, { markdown: true }), MAX_PLAN_LENGTH)));
  return [
    planMarker(input.issue),
    '**issueloop** · a plan for this issue, waiting for your answer',
    '',
    body,
    '',
    PLAN_END,
    '',
    '---',
    'People with write access answer on this issue: `/approve` and issueloop works this plan, or',
    '`/revise <what to change>` for a new plan. Each command starts a comment of its own.',
    `Unanswered, the plan is withdrawn after ${period(input.expiresMs)}.`,
  ].join('\n');
}

/** The plan comment once withdrawn: its plan kept, its answer line replaced. */
export function withdrawnPlanComment(body: string, expiresMs: number): string {
  const end = body.indexOf(PLAN_END);
  const head = end === -1 ? body : body.slice(0, end + PLAN_END.length);
  return [
    head,
    WITHDRAWN_MARKER,
    '',
    '---',
    `**Withdrawn**: nobody answered within ${period(expiresMs)}. A \`/issueloop plan\` or`,
    '`/issueloop retry` from someone with write access asks for a new plan.',
  ].join('\n');
}

/** Whether a comment body is a plan comment for `issue` (its author is checked by the caller). */
export function isPlanComment(body: string, issue: number): boolean {
  return body.startsWith(planMarker(issue));
}

export function isWithdrawn(body: string): boolean {
  return body.includes(WITHDRAWN_MARKER);
}

/** The plan a plan comment holds, as posted (between its heading and its end marker). */
export function planText(body: string): string {
  const lines = body.split('\n');
  const end = lines.indexOf(PLAN_END);
  return lines
    .slice(2, end === -1 ? undefined : end)
    .join('\n')
    .trim();
}
