import { z } from 'zod';

/**
 * The body of the one comment issueloop keeps on each issue: a short status a person reads, and a
 * hidden machine record (attempts, failures, last outcome) so history survives the loss of the
 * state directory. The record is base64url JSON inside an HTML comment: no text in it can close
 * the comment early, and nothing in it renders.
 */
export const TRACKING_MARKER = '<!-- issueloop:tracking -->';
const RECORD_PATTERN = /<!-- issueloop:record ([A-Za-z0-9_-]*) -->/g;
const MAX_TEXT = 300;
const MAX_REASONS = 10;
/** GitHub rejects comment bodies over 65,536 characters. */
export const MAX_COMMENT = 65_536;
const MAX_RECORD_BYTES = 64 * 1024;

const timestamp = z.iso.datetime({ offset: true });

const TrackingFailureSchema = z.strictObject({
  at: timestamp,
  error_class: z.string().min(1).max(100),
  message: z.string().max(MAX_TEXT),
});

const TrackingRecordSchema = z.strictObject({
  version: z.literal(1),
  attempts: z.int().nonnegative(),
  failure_count: z.int().nonnegative(),
  failure_reasons: z.array(TrackingFailureSchema).max(MAX_REASONS),
  last_outcome: z.string().max(100).nullable(),
  updated_at: timestamp,
});

export type TrackingFailure = z.infer<typeof TrackingFailureSchema>;
export type TrackingRecord = z.infer<typeof TrackingRecordSchema>;
export type TrackingPhase = 'queued' | 'working' | 'verifying' | 'review' | 'done' | 'failed' | 'blocked';

export interface TrackingView {
  phase: TrackingPhase;
  attempt: number;
  model?: string;
  costUsd?: number;
  prUrl?: string;
  lastFailure?: string;
  record: TrackingRecord;
}

const PHASE_TEXT: Readonly<Record<TrackingPhase, string>> = {
  queued: 'queued',
  working: 'working on it',
  verifying: 'verifying the change',
  review: 'draft pull request open for review',
  done: 'done',
  failed: 'attempt failed; will retry',
  blocked: 'needs a human',
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

function cap(text: string, max = MAX_TEXT): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One line, redacted, capped, with nothing that can break a table cell or open HTML. */
function cell(text: string, redact: (text: string) => string): string {
  const flat = cap(redact(text).replace(/\s+/g, ' ').trim());
  return flat.replace(/[&<>|`\\[\]]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function safeUrl(url: string): string | undefined {
  return /^https?:\/\/[^\s<>()]+$/.test(url) ? url : undefined;
}

function encodeRecord(record: TrackingRecord, redact: (text: string) => string): string {
  const clean: TrackingRecord = {
    ...record,
    failure_reasons: record.failure_reasons.slice(-MAX_REASONS).map((r) => ({
      ...r,
      message: cap(redact(r.message).replace(/\s+/g, ' ').trim()),
    })),
  };
  return Buffer.from(JSON.stringify(clean), 'utf8').toString('base64url');
}

export function renderTrackingComment(view: TrackingView, redact: (text: string) => string): string {
  const rows: Array<[string, string]> = [
    ['Phase', PHASE_TEXT[view.phase]],
    ['Attempt', String(view.attempt)],
  ];
  if (view.model) rows.push(['Model', cell(view.model, redact)]);
  if (view.costUsd !== undefined) rows.push(['Cost so far', `$${view.costUsd.toFixed(2)}`]);
  const pr = view.prUrl ? safeUrl(view.prUrl) : undefined;
  if (pr) rows.push(['Pull request', pr]);
  if (view.lastFailure) rows.push(['Last failure', cell(view.lastFailure, redact)]);
  const lines = [
    TRACKING_MARKER,
    `**issueloop** · ${PHASE_TEXT[view.phase]}`,
    '',
    '| | |',
    '|---|---|',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
  ];
  const reasons = view.record.failure_reasons.slice(-MAX_REASONS).reverse();
  if (reasons.length > 0) {
    lines.push('', `<details><summary>${view.record.failure_count} failure(s)</summary>`, '');
    for (const r of reasons)
      lines.push(`- ${cell(r.at, redact)} · ${cell(r.error_class, redact)}: ${cell(r.message, redact)}`);
    lines.push('', '</details>');
  }
  lines.push('', `<!-- issueloop:record ${encodeRecord(view.record, redact)} -->`);
  // Bounded by construction (≤ 10 reasons of ≤ 300 chars); the slice is a last guard.
  return lines.join('\n').slice(0, MAX_COMMENT);
}

export function isTrackingComment(body: string): boolean {
  return body.split(/\r?\n/).some((line) => line.trim() === TRACKING_MARKER);
}

/**
 * The record of a tracking comment, or undefined for anything else. A body with more than one
 * record is not trusted at all: which one is real cannot be told, and a guess could erase history.
 */
export function parseTrackingRecord(body: string): TrackingRecord | undefined {
  const matches = [...body.matchAll(RECORD_PATTERN)];
  if (matches.length !== 1) return undefined;
  const encoded = matches[0]?.[1] ?? '';
  if (encoded.length === 0 || encoded.length > (MAX_RECORD_BYTES * 4) / 3) return undefined;
  try {
    const parsed = TrackingRecordSchema.safeParse(
      JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
