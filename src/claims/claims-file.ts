import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { CorruptStateError } from '../core/errors.js';
import { formatPath } from '../core/format-path.js';
import { stateAccessErrorOf } from '../core/state-access.js';
import {
  CLAIMS_FORMAT_VERSION,
  type ClaimsFile,
  ClaimsFileSchema,
  emptyClaimsFile,
} from './claims-schema.js';

function corrupt(file: string, detail: string, cause?: unknown): CorruptStateError {
  const fix =
    'Repair it by hand, or run `issueloop reset --claims` to move it aside as ' +
    `${basename(file)}.corrupt-<time> and start with no claims.`;
  return new CorruptStateError(file, detail, fix, cause === undefined ? undefined : { cause });
}

/**
 * The smallest safe next fencing token for a file that no longer parses: above its `next_token`
 * and every `token` still legible in the text; undefined when none is.
 */
export function salvageNextToken(text: string): number | undefined {
  const next = [...text.matchAll(/"next_token"\s*:\s*(\d{1,15})/g)].map((m) => Number(m[1]));
  const tokens = [...text.matchAll(/"token"\s*:\s*(\d{1,15})/g)].map((m) => Number(m[1]) + 1);
  const all = [...next, ...tokens];
  return all.length === 0 ? undefined : Math.max(1, ...all);
}

/** Parses and validates the claims file's text; anything else is a `CorruptStateError` naming the file. */
export function parseClaimsFile(file: string, text: string): ClaimsFile {
  if (text.trim() === '') throw corrupt(file, 'the file is empty');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw corrupt(file, `invalid JSON: ${(err as Error).message}`, err);
  }
  const version = (data as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > CLAIMS_FORMAT_VERSION) {
    throw new CorruptStateError(
      file,
      `format version ${version} was written by a newer issueloop (this one reads version ${CLAIMS_FORMAT_VERSION})`,
      'Upgrade issueloop to read it.',
      { reason: 'newer_version' },
    );
  }
  const parsed = ClaimsFileSchema.safeParse(data);
  if (!parsed.success) {
    const shown = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${formatPath(i.path) || '(top level)'}: ${i.message}`);
    const more = parsed.error.issues.length > 3 ? ` (and ${parsed.error.issues.length - 3} more)` : '';
    throw corrupt(file, `not a claims file: ${shown.join('; ')}${more}`, parsed.error);
  }
  return parsed.data;
}

/**
 * The current state; a missing file is an empty store. A file that cannot be read (no permission, a
 * directory in its place, a file where the state directory should be) is a `StateAccessError`.
 */
export async function readClaimsFile(file: string): Promise<ClaimsFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyClaimsFile();
    throw (await stateAccessErrorOf(err, { path: file, action: 'read' })) ?? err;
  }
  return parseClaimsFile(file, text);
}

export function serializeClaimsFile(state: ClaimsFile): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}
