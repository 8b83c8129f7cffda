import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { OpenedClaimStore } from '../claims/open-claim-store.js';
import type { OutcomeRecord } from '../claims/outcome-record.js';
import { CorruptStateError } from '../core/errors.js';

/** Whatever lists the issues' outcome records (the outcome store's `list()`). */
export interface OutcomeList {
  list(): Promise<OutcomeRecord[]>;
}

export const OUTCOMES_FILE_NAME = 'outcomes.json';

/**
 * The one seam between the outcome figures (`report`, `status`, the action) and where the records
 * live. An opened store that carries an outcome list is read through it (file or Redis alike). Until
 * the outcome store lands, a file store's records are read from `outcomes.json` beside its claims
 * file (an array of records, `{ "records": [...] }`, or the outcome store's own
 * `{ "version": 1, "issues": { "<n>": record } }`); none there, or a Redis store, gives none.
 */
export async function readOutcomes(
  opened: OpenedClaimStore & { outcomes?: OutcomeList },
): Promise<OutcomeRecord[]> {
  if (opened.outcomes) return opened.outcomes.list();
  if (!opened.file) return [];
  const file = join(dirname(opened.file), OUTCOMES_FILE_NAME);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return parseOutcomes(file, text);
}

const FIX = 'Move it aside to report without it; the PR sweep rebuilds records from GitHub.';

function parseOutcomes(file: string, text: string): OutcomeRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CorruptStateError(file, 'not JSON', FIX, { cause: error });
  }
  const records = Array.isArray(parsed) ? parsed : recordsOf(parsed);
  if (!Array.isArray(records)) throw new CorruptStateError(file, 'no list of outcome records', FIX);
  records.forEach((record, index) => {
    if (!looksLikeRecord(record))
      throw new CorruptStateError(file, `record ${index + 1} is not an outcome record`, FIX);
  });
  return records as OutcomeRecord[];
}

/** `{ records: [...] }`, or the outcome store's `{ version, issues: { "<n>": record } }`. */
function recordsOf(parsed: unknown): unknown {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { records, issues } = parsed as { records?: unknown; issues?: unknown };
  if (records !== undefined) return records;
  return typeof issues === 'object' && issues !== null && !Array.isArray(issues)
    ? Object.values(issues)
    : undefined;
}

/** The fields the figures read, with their types; the rest is the store's to check. */
function looksLikeRecord(value: unknown): value is OutcomeRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  const touch = r.touch as Record<string, unknown> | undefined;
  return (
    Number.isSafeInteger(r.issue) &&
    Array.isArray(r.labels) &&
    r.labels.every((l) => typeof l === 'string') &&
    typeof r.first_claimed_at === 'string' &&
    Array.isArray(r.sessions) &&
    r.sessions.every(looksLikeSession) &&
    (r.pull === undefined || (typeof r.pull === 'object' && r.pull !== null)) &&
    typeof touch === 'object' &&
    touch !== null &&
    typeof touch.commits === 'number' &&
    typeof touch.change_requests === 'number'
  );
}

function looksLikeSession(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s.kind === 'string' &&
    typeof s.at === 'string' &&
    typeof s.engine === 'string' &&
    Array.isArray(s.models) &&
    typeof s.usd === 'number' &&
    Number.isFinite(s.usd)
  );
}
