import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { CorruptStateError } from '../core/errors.js';
import { stateAccessErrorOf } from '../core/state-access.js';
import {
  CLAIMS_FORMAT_VERSION,
  type ClaimsFile,
  ClaimsFileSchema,
  emptyClaimsFile,
} from './claims-schema.js';
import { parseStateFile } from './parse-state-file.js';

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
  return parseStateFile(file, text, {
    schema: ClaimsFileSchema,
    version: CLAIMS_FORMAT_VERSION,
    what: 'a claims file',
    corrupt,
  });
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
