import { z } from 'zod';
import type { Redactor } from '../core/redact.js';
import { type BestOfView, bestOfText } from './best-of-text.js';
import { type BlockedLine, blockedItems, WIDEN_HINT } from './blocked-requests-text.js';
import { neutraliseMarkdown } from './neutralise.js';
import { clip, oneLine } from './text-limits.js';
import { parseSessionsLine, sessionsLine, type TrackedSession } from './tracked-sessions.js';

/**
 * The body of the one comment issueloop keeps on each issue: a short status a person reads, and a
 * hidden machine record (attempts, failures, last outcome) so that history survives the loss of the
 * state directory. The record is base64url JSON inside an HTML comment: no text in it can close the
 * comment early, and nothing in it renders. Everything shown is redacted, one line, capped, and
 * escaped, so no failure message can break the table, open HTML, or ping anyone.
 */
export const TRACKING_MARKER = '<!-- issueloop:tracking -->';
const RECORD_OPEN = '<!-- issueloop:record ';
const RECORD_LINE = /^<!-- issueloop:record ([A-Za-z0-9_-]+) -->\r?$/;

/** GitHub rejects comment bodies of more than 65,536 characters. */
export const MAX_COMMENT_LENGTH = 65_536;
/** How many failure reasons the record keeps: enough to see a pattern, small enough to read. */
export const MAX_TRACKED_FAILURES = 10;
const MAX_TEXT = 300;
const MAX_ERROR_CLASS = 100;
/** A record is a few KiB; anything that decodes to more than this is not ours. */
const MAX_RECORD_BYTES = 64 * 1024;
const MAX_ENCODED_RECORD = Math.ceil(MAX_RECORD_BYTES / 3) * 4;

export interface TrackingFailure {
  /** ISO 8601. */
  at: string;
  error_class: string;
  message: string;
}

export interface TrackingRecord {
  version: 1;
  attempts: number;
  failure_count: number;
  /** Newest last, at most MAX_TRACKED_FAILURES. */
  failure_reasons: TrackingFailure[];
  last_outcome: string | null;
  updated_at: string;
  /**
   * The issue's sessions, oldest first (tracked-sessions.ts): written on a line of their own, so a
   * reader that predates them still reads the record.
   */
  sessions?: TrackedSession[];
}

export type TrackingPhase =
  | 'queued'
  | 'working'
  | 'verifying'
  | 'review'
  | 'done'
  | 'failed'
  | 'blocked'
  | 'paused';

export interface TrackingView {
  phase: TrackingPhase;
  attempt: number;
  model?: string;
  costUsd?: number;
  prUrl?: string;
  lastFailure?: string;
  /** Phase `paused`: the run's own failure that stopped the attempt (not charged to the issue). */
  pausedBy?: string;
  /** Destinations the sandbox's egress proxy refused in the attempt (untrusted text). */
  blockedRequests?: readonly BlockedLine[];
  /** Refusals of destinations the list leaves out. */
  blockedOthers?: number;
  /** `sandbox.mode: none`: the comment says so, in every phase. */
  unsandboxed?: boolean;
  /** A best-of-N claim: its attempts and the judge's choice (the reason is partly a model's text). */
  bestOf?: BestOfView;
  record: TrackingRecord;
}

type Redact = Redactor;

const timestamp = z.iso.datetime({ offset: true });

const TrackingRecordSchema: z.ZodType<Omit<TrackingRecord, 'sessions'>> = z.strictObject({
  version: z.literal(1),
  attempts: z.int().nonnegative(),
  failure_count: z.int().nonnegative(),
  failure_reasons: z
    .array(
      z.strictObject({
        at: timestamp,
        error_class: z.string().min(1).max(MAX_ERROR_CLASS),
        message: z.string().max(MAX_TEXT),
      }),
    )
    .max(MAX_TRACKED_FAILURES),
  last_outcome: z.string().max(MAX_TEXT).nullable(),
  updated_at: timestamp,
});

const PHASE_TEXT: Readonly<Record<TrackingPhase, string>> = {
  queued: 'queued',
  working: 'working on it',
  verifying: 'verifying the change',
  review: 'draft pull request ready for review',
  done: 'done',
  failed: 'attempt failed',
  blocked: 'blocked, needs a human',
  paused: 'paused',
};

export function emptyTrackingRecord(now: string): TrackingRecord {
  return {
    version: 1,
    attempts: 0,
    failure_count: 0,
    failure_reasons: [],
    last_outcome: null,
    updated_at: now,
  };
}

export function renderTrackingComment(view: TrackingView, redact: Redact): string {
  const record = storedRecord(view.record, redact);
  const rows: Array<[string, string]> = [['Attempt', count(view.attempt)]];
  if (view.model !== undefined) rows.push(['Model', shown(view.model, redact)]);
  if (view.costUsd !== undefined) rows.push(['Cost so far', dollars(view.costUsd)]);
  if (view.prUrl !== undefined) rows.push(['Pull request', pullRequestLink(view.prUrl, redact)]);
  if (view.bestOf !== undefined) rows.push(['Attempts', shown(bestOfText(view.bestOf), redact)]);
  if (view.lastFailure !== undefined) rows.push(['Last failure', shown(view.lastFailure, redact)]);
  if (view.blockedRequests && view.blockedRequests.length > 0) {
    const items = blockedItems(view.blockedRequests, redact, view.blockedOthers);
    rows.push(['Blocked network requests', `${items.join(', ')}; ${WIDEN_HINT}`]);
  }
  if (view.unsandboxed) {
    rows.push(['Sandbox', "**none**: the agent's commands ran unconfined (`sandbox.mode: none`)"]);
  }
  const phase =
    view.phase === 'paused' && view.pausedBy !== undefined
      ? `paused: ${shown(view.pausedBy, redact)}`
      : PHASE_TEXT[view.phase];
  const head = [
    TRACKING_MARKER,
    `**issueloop** · ${phase}`,
    '',
    `| Phase | ${phase} |`,
    '| --- | --- |',
    ...rows.map(([name, value]) => `| ${name} | ${value} |`),
  ].join('\n');
  const tail = [
    '',
    '',
    `<sub>Updated ${shown(record.updated_at, redact)}. issueloop rewrites this comment; edits are lost.</sub>`,
    '',
    `${RECORD_OPEN}${Buffer.from(JSON.stringify(record), 'utf8').toString('base64url')} -->`,
    ...[sessionsLine(view.record.sessions ?? [])].filter((line) => line !== ''),
  ].join('\n');
  return `${head}${failureList(record, MAX_COMMENT_LENGTH - 1 - head.length - tail.length)}${tail}`;
}

/** The reasons, newest first, as many as fit in `budget` characters (all of them, short of a pathological redactor). */
function failureList(record: Omit<TrackingRecord, 'sessions'>, budget: number): string {
  const reasons = [...record.failure_reasons].reverse();
  if (reasons.length === 0) return '';
  const open = `\n\n<details><summary>Failures: ${count(record.failure_count)}, newest first</summary>\n\n`;
  const close = '\n\n</details>';
  const items: string[] = [];
  let used = open.length + close.length + 40;
  for (const [i, reason] of reasons.entries()) {
    const item = `- ${shown(reason.at, identity)} · **${shown(reason.error_class, identity)}**: ${shown(reason.message, identity)}`;
    if (used + item.length + 1 > budget) {
      items.push(`- … and ${reasons.length - i} older`);
      break;
    }
    items.push(item);
    used += item.length + 1;
  }
  return used > budget ? '' : `${open}${items.join('\n')}${close}`;
}

export function isTrackingComment(body: string): boolean {
  return body.startsWith(TRACKING_MARKER) || body.includes(`\n${TRACKING_MARKER}`);
}

/**
 * The machine record of a tracking comment, or undefined for anything else; never throws. A body
 * with more than one record marker is not trusted at all: issueloop writes exactly one, so a second
 * means someone edited the comment or pasted a record into it, and which one is genuine cannot be
 * told. A wrong guess would invent or erase history; no record only means starting the count again.
 */
export function parseTrackingRecord(body: string): TrackingRecord | undefined {
  const at = body.indexOf(RECORD_OPEN);
  if (at === -1 || body.indexOf(RECORD_OPEN, at + 1) !== -1) return undefined;
  if (at > 0 && body[at - 1] !== '\n') return undefined;
  const eol = body.indexOf('\n', at);
  const line = body.slice(at, eol === -1 ? body.length : eol);
  if (line.length > MAX_ENCODED_RECORD + RECORD_OPEN.length + 5) return undefined;
  const encoded = RECORD_LINE.exec(line)?.[1];
  if (encoded === undefined) return undefined;
  try {
    const parsed = TrackingRecordSchema.safeParse(
      JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')),
    );
    if (!parsed.success) return undefined;
    const sessions = parseSessionsLine(body);
    return sessions ? { ...parsed.data, sessions } : parsed.data;
  } catch {
    return undefined;
  }
}

/** The record as written (sessions aside): newest reasons only, every text redacted, one line and capped. */
function storedRecord(record: TrackingRecord, redact: Redact): Omit<TrackingRecord, 'sessions'> {
  return {
    version: 1,
    attempts: nonNegative(record.attempts),
    failure_count: nonNegative(record.failure_count),
    failure_reasons: record.failure_reasons.slice(-MAX_TRACKED_FAILURES).map((reason) => ({
      at: reason.at,
      error_class: clip(oneLine(redact(reason.error_class)), MAX_ERROR_CLASS) || 'unknown',
      message: clip(oneLine(redact(reason.message)), MAX_TEXT),
    })),
    last_outcome: record.last_outcome === null ? null : clip(oneLine(redact(record.last_outcome)), MAX_TEXT),
    updated_at: record.updated_at,
  };
}

const identity: Redact = (text) => text;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '|': '&#124;',
  '`': '&#96;',
  '\\': '&#92;',
  '[': '&#91;',
  ']': '&#93;',
};

/**
 * Free text as shown: redacted before anything is cut (so no secret survives as a prefix), one line,
 * capped, then with every character that could end a table cell, open HTML or a link, start code or
 * escape our own delimiter written as an entity. Backslash too: `\|` would merge two table cells.
 * Last, no mention or closing reference is left live (neutralise.ts).
 */
function shown(text: string, redact: Redact): string {
  const escaped = clip(oneLine(redact(text, { markdown: true })), MAX_TEXT).replace(
    /[&<>|`\\[\]]/g,
    (c) => ESCAPES[c] ?? c,
  );
  return neutraliseMarkdown(escaped);
}

function nonNegative(value: number): number {
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function count(value: number): string {
  return Number.isSafeInteger(value) && value >= 0 ? String(value) : '?';
}

function dollars(value: number): string {
  return Number.isFinite(value) && value >= 0 && value < 1e9 ? `$${value.toFixed(2)}` : 'unknown';
}

/** A link only for a plain https URL; `#123` as its text when it is a pull request's. */
function pullRequestLink(url: string, redact: Redact): string {
  if (!/^https:\/\/[A-Za-z0-9.-]+(?::\d+)?\/[A-Za-z0-9._~/%-]*$/.test(url) || url.length > MAX_TEXT) {
    return shown(url, redact);
  }
  const number = /\/pull\/(\d+)$/.exec(url)?.[1];
  return `[${number === undefined ? 'open' : `#${number}`}](${url})`;
}
