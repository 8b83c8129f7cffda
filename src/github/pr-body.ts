import type { Redactor } from '../core/redact.js';
import { type BlockedLine, renderBlockedSection } from './blocked-requests-text.js';
import { sanitizeIssueTitle } from './issue-title.js';
import { codeSpan, inertImages, longestRun, neutraliseMarkdown } from './neutralise.js';
import { clip, oneLine } from './text-limits.js';

/**
 * Title and body of the draft pull request issueloop opens for an issue, and its commit message. The
 * issue title is untrusted (anyone who can open an issue wrote it). The summary, the verify
 * output, the command and the file names are untrusted (the agent wrote or caused them, and the
 * agent read the issue), so all of them are redacted, and nothing in them may close another issue,
 * ping anyone, hide the rest of the body behind an HTML comment, or break out of its code block. The
 * one closing keyword in the body and in the commit message is ours.
 */

/** Marks a pull request body as issueloop's. */
export const PR_MARKER = '<!-- issueloop:pr -->';
/**
 * How many follow-up sessions pushed to this PR, and the reviews they answered, kept in its body for
 * any runner to read: only the marker on the line right before PR_MARKER counts (the body's end is
 * issueloop's own; a marker in the verify output or a file name above it is text).
 */
// \r?: a body edited on github.com comes back with CRLF line ends.
const FOLLOWUPS_MARKER =
  /<!-- issueloop:followups (\d+)(?: answered ([\d,]+))? -->\r?\n<!-- issueloop:pr -->\s*$/;
/** Review ids kept in the marker: the newest, so the body never grows without bound. */
const MAX_ANSWERED = 100;
/** GitHub rejects pull request bodies of more than 65,536 characters. */
export const MAX_PR_BODY_LENGTH = 65_536;
const MAX_TITLE = 256;
const MAX_FILES_LISTED = 100;
const MAX_FILE_NAME = 300;
const MAX_COMMAND = 1_000;
const MAX_MODEL = 100;
const MAX_WHY = 300;
/** Room kept for the notes that say how much was trimmed. */
const TRIM_NOTE_ROOM = 200;

export interface PullRequestReport {
  issue: { number: number; title: string };
  /** The agent's own summary of its change: untrusted text. */
  summary: string;
  filesChanged: string[];
  verify?: {
    command: string;
    exitCode: number | null;
    passed: boolean;
    outputTail: string;
    durationMs?: number;
  };
  costUsd: number;
  /** Follow-up sessions that pushed to the PR so far (failing CI fixed, …); 0 or absent for the first. */
  followups?: number;
  /** Reviews (their ids) whose own bodies follow-ups answered, kept in the follow-up marker. */
  answeredReviews?: readonly number[];
  model?: string;
  modelCalls?: number;
  toolCalls?: number;
  /** Destinations the sandbox's egress proxy refused: untrusted text, listed in their own section. */
  blockedRequests?: readonly BlockedLine[];
  /** Refusals of destinations the list leaves out (the session's tally is bounded). */
  blockedOthers?: number;
  /** Best-of-N: chosen from `from` attempts, for `why` (a judge's words in it: untrusted text). */
  chosen?: { from: number; why: string; totalUsd: number };
}

type Redact = Redactor;
/** The title, the summary and the commit message are Markdown GitHub renders (redact.ts). */
const MARKDOWN = { markdown: true } as const;

/**
 * `Fix #<n>: <title>`. The title is sanitised again (this must hold whoever passes it) and cannot
 * close another issue: a squash merge makes the pull request title the commit subject on the default
 * branch, where a closing keyword acts.
 */
export function renderPullRequestTitle(
  issue: { number: number; title: string },
  redact: Redact = (text) => text,
): string {
  const title = neutraliseMarkdown(redact(sanitizeIssueTitle(issue.title), MARKDOWN));
  return clip(`Fix #${issueNumber(issue.number)}${title === '' ? '' : `: ${title}`}`, MAX_TITLE);
}

/** The session's commit: the pull request title as subject, then `Closes #<n>`, the only closing reference. */
export function renderCommitMessage(
  issue: { number: number; title: string },
  redact: Redact = (text) => text,
): string {
  return `${renderPullRequestTitle(issue, redact)}\n\nCloses #${issueNumber(issue.number)}\n`;
}

export function renderPullRequestBody(report: PullRequestReport, redact: Redact): string {
  // When over the limit, aim lower by the room the "trimmed" notes take.
  const target = MAX_PR_BODY_LENGTH - 1 - TRIM_NOTE_ROOM;
  let summary = untrustedProse(redact(report.summary, MARKDOWN));
  let tail = report.verify ? neutraliseMarkdown(redact(report.verify.outputTail)) : '';
  let body = composeBody(report, redact, summary, tail);
  // Over the limit: the output tail gives way first (keeping its end), then the summary (keeping its start).
  if (body.length >= MAX_PR_BODY_LENGTH) {
    tail = keepEnd(tail, tail.length - (body.length - target));
    body = composeBody(report, redact, summary, tail);
  }
  if (body.length >= MAX_PR_BODY_LENGTH) {
    summary = keepStart(summary, summary.length - (body.length - target));
    body = composeBody(report, redact, summary, tail);
  }
  // Unreachable with the caps above; a last guard all the same.
  return body.length < MAX_PR_BODY_LENGTH ? body : body.slice(0, MAX_PR_BODY_LENGTH - 1);
}

function composeBody(report: PullRequestReport, redact: Redact, summary: string, tail: string): string {
  const files = report.filesChanged;
  const listed = files
    .slice(0, MAX_FILES_LISTED)
    .map((file) => `- ${codeSpan(clip(redact(file), MAX_FILE_NAME))}`);
  if (files.length > MAX_FILES_LISTED) listed.push(`- … and ${files.length - MAX_FILES_LISTED} more`);
  return [
    `Closes #${issueNumber(report.issue.number)}`,
    '',
    'Drafted by issueloop. The summary below is the agent’s own account; review the change like any other.',
    '',
    '## Summary',
    '',
    summary.trim() === '' ? '_No summary given._' : closeOpenFence(summary),
    '',
    `## Files changed (${files.length})`,
    '',
    ...(listed.length > 0 ? listed : ['_None._']),
    '',
    '## Verification',
    '',
    ...verification(report.verify, redact, tail),
    '',
    ...chosenSection(report.chosen, redact),
    ...renderBlockedSection(report.blockedRequests, redact, report.blockedOthers),
    '---',
    '',
    footer(report, redact),
    ...(isCount(report.followups) && report.followups > 0 ? [followupsMarker(report)] : []),
    PR_MARKER,
  ].join('\n');
}

function verification(verify: PullRequestReport['verify'], redact: Redact, tail: string): string[] {
  if (!verify) return ['_No verify command is configured: nothing was run._'];
  const exit =
    verify.exitCode === null ? 'no exit code: killed or timed out' : `exit code ${verify.exitCode}`;
  const ms = verify.durationMs;
  const took = ms !== undefined && Number.isFinite(ms) && ms >= 0 ? ` in ${(ms / 1000).toFixed(1)} s` : '';
  const lines = [
    `Command: ${codeSpan(clip(oneLine(redact(verify.command)), MAX_COMMAND))}`,
    '',
    `Result: ${verify.passed ? '✅ **passed**' : '❌ **failed**'} (${exit})${took}`,
  ];
  if (tail.trim() === '') return [...lines, '', '_No output._'];
  // Longer than any run of backticks in the output, so no line of it can close the block.
  const fence = '`'.repeat(Math.max(3, longestRun(tail, '`') + 1));
  const open = verify.passed ? '<details>' : '<details open>';
  return [...lines, '', `${open}<summary>Output (end)</summary>`, '', fence, tail, fence, '', '</details>'];
}

/** Why this attempt of several was delivered, and what they all cost. */
function chosenSection(chosen: PullRequestReport['chosen'], redact: Redact): string[] {
  if (!chosen || !isCount(chosen.from)) return [];
  const why = untrustedProse(redact(clip(oneLine(chosen.why), MAX_WHY), MARKDOWN));
  const total =
    Number.isFinite(chosen.totalUsd) && chosen.totalUsd >= 0 ? `$${chosen.totalUsd.toFixed(2)}` : 'unknown';
  return [
    `## Chosen from ${chosen.from} attempts`,
    '',
    `This change was chosen from ${chosen.from} attempts: ${why}. The attempts and the judge cost ${total} together.`,
    '',
  ];
}

function followupsMarker(report: PullRequestReport): string {
  const answered = (report.answeredReviews ?? []).filter(isCount).slice(-MAX_ANSWERED);
  const ids = answered.length > 0 ? ` answered ${answered.join(',')}` : '';
  return `<!-- issueloop:followups ${report.followups}${ids} -->`;
}

/** The follow-up count a PR body carries (0 without the marker). */
export function followupsOf(body: string | null | undefined): number {
  const match = FOLLOWUPS_MARKER.exec(body ?? '');
  return match ? Number(match[1]) : 0;
}

/** The ids of the reviews a follow-up answered, as the PR body's marker records them. */
export function answeredReviewsOf(body: string | null | undefined): number[] {
  const match = FOLLOWUPS_MARKER.exec(body ?? '');
  return match?.[2]
    ? match[2]
        .split(',')
        .filter((id) => id !== '')
        .map(Number)
    : [];
}

function footer(report: PullRequestReport, redact: Redact): string {
  const cost =
    Number.isFinite(report.costUsd) && report.costUsd >= 0 ? `$${report.costUsd.toFixed(2)}` : 'unknown';
  const parts = [`issueloop · cost ${cost}`];
  if (report.model !== undefined)
    parts.push(`model ${codeSpan(clip(oneLine(redact(report.model)), MAX_MODEL))}`);
  if (isCount(report.modelCalls)) parts.push(`${report.modelCalls} model calls`);
  if (isCount(report.toolCalls)) parts.push(`${report.toolCalls} tool calls`);
  if (isCount(report.followups) && report.followups > 0) parts.push(`follow-up ${report.followups}`);
  return parts.join(' · ');
}

/**
 * Agent prose as Markdown, minus what it could abuse: closing keywords, mentions, raw HTML (an
 * unterminated `<!--` would hide everything after it, the real verification result included; `<img>`
 * and `<picture>` go with it), and images.
 */
export function untrustedProse(text: string): string {
  return inertImages(neutraliseMarkdown(text).replace(/<(?=[!?/A-Za-z])/g, '&lt;'));
}

/** Closes a fenced code block the summary left open, which would otherwise swallow the rest of the body. */
export function closeOpenFence(text: string): string {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!match) continue;
    const [, fence = '', rest = ''] = match;
    if (open === undefined && !(fence.startsWith('`') && rest.includes('`'))) open = fence;
    else if (open && fence[0] === open[0] && fence.length >= open.length && rest.trim() === '')
      open = undefined;
  }
  return open === undefined ? text : `${text}\n${open}`;
}

function keepEnd(text: string, keep: number): string {
  if (keep >= text.length) return text;
  let kept = text.slice(text.length - Math.max(0, keep));
  const firstBreak = kept.indexOf('\n');
  // Start at a whole line when one begins soon; never at the second half of a surrogate pair.
  if (firstBreak !== -1 && firstBreak < 200) kept = kept.slice(firstBreak + 1);
  else if (/^[\uDC00-\uDFFF]/.test(kept)) kept = kept.slice(1);
  return `[… ${text.length - kept.length} earlier characters trimmed]\n${kept}`;
}

function keepStart(text: string, keep: number): string {
  if (keep >= text.length) return text;
  return `${clip(text, Math.max(1, keep))}\n\n_[… ${text.length - Math.max(1, keep)} more characters trimmed]_`;
}

function isCount(value: number | undefined): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0;
}

function issueNumber(value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`not an issue number: ${value}`);
  return value;
}
