import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { CorruptStateError } from '../core/errors.js';
import { stateAccessErrorOf } from '../core/state-access.js';
import type { OutcomeRecord } from './outcome-record.js';
import { parseStateFile } from './parse-state-file.js';

/**
 * The outcomes file's format (`<state dir>/outcomes.json`), validated on every read. Objects keep
 * fields this version does not know, so a record a newer issueloop extended additively still reads.
 */
export const OUTCOMES_FORMAT_VERSION = 1;

const timestamp = z.iso.datetime({ offset: true });
const count = z.int().nonnegative();

const SessionEntrySchema = z.looseObject({
  kind: z.enum(['attempt', 'ci_followup', 'review_followup', 'base_merge']),
  at: timestamp,
  run_id: z.string(),
  engine: z.enum(['native', 'claude-code']),
  models: z.array(z.string()),
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  usd: z.number().nonnegative(),
  duration_ms: z.number().nonnegative(),
  outcome: z.string(),
});

const PullFateSchema = z.looseObject({
  number: z.int().positive(),
  url: z.string(),
  state: z.enum(['open', 'merged', 'closed']),
  opened_at: timestamp,
  merged_at: timestamp.optional(),
  closed_at: timestamp.optional(),
  by: z.string().optional(),
});

export const OutcomeRecordSchema = z.looseObject({
  issue: z.int().positive(),
  title: z.string(),
  labels: z.array(z.string()),
  first_claimed_at: timestamp,
  sessions: z.array(SessionEntrySchema),
  pull: PullFateSchema.optional(),
  earlier_pulls: z.array(PullFateSchema).optional(),
  touch: z.looseObject({ commits: count, change_requests: count, threads: count }),
});

const OutcomesFileSchema = z
  .looseObject({
    version: z.literal(OUTCOMES_FORMAT_VERSION),
    issues: z.record(z.string().regex(/^[1-9]\d*$/, 'expected an issue number as key'), OutcomeRecordSchema),
  })
  .superRefine((file, ctx) => {
    for (const [key, record] of Object.entries(file.issues)) {
      if (String(record.issue) !== key) {
        ctx.addIssue({ code: 'custom', path: ['issues', key, 'issue'], message: `must be ${key}` });
      }
    }
  });

export interface OutcomesFile {
  version: typeof OUTCOMES_FORMAT_VERSION;
  issues: Record<string, OutcomeRecord>;
}

export function emptyOutcomesFile(): OutcomesFile {
  return { version: OUTCOMES_FORMAT_VERSION, issues: {} };
}

function corrupt(file: string, detail: string, cause?: unknown): CorruptStateError {
  const fix =
    `Repair it by hand, or move it aside (for example to ${basename(file)}.corrupt): the next run ` +
    'starts a new one and reads the records of issues with a pull request back from GitHub.';
  return new CorruptStateError(file, detail, fix, cause === undefined ? undefined : { cause });
}

/** Parses and validates the outcomes file's text; anything else is a `CorruptStateError` naming the file. */
export function parseOutcomesFile(file: string, text: string): OutcomesFile {
  return parseStateFile(file, text, {
    schema: OutcomesFileSchema,
    version: OUTCOMES_FORMAT_VERSION,
    what: 'an outcomes file',
    corrupt,
  }) as OutcomesFile;
}

/** The current records; a missing file is none. An unreadable path is a `StateAccessError`. */
export async function readOutcomesFile(file: string): Promise<OutcomesFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyOutcomesFile();
    throw (await stateAccessErrorOf(err, { path: file, action: 'read' })) ?? err;
  }
  return parseOutcomesFile(file, text);
}

export function serializeOutcomesFile(state: OutcomesFile): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}
