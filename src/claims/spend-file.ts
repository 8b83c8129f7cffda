import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CorruptStateError } from '../core/errors.js';
import type { FileLockOptions } from './file-lock.js';
import { parseStateFile } from './parse-state-file.js';
import { emptySpendFile, type SpendBackend, type SpendFile } from './spend-ledger.js';
import { createFileStateBackend } from './state-backend.js';

/**
 * The spend ledger of a file claim store: `spend.json` beside `claims.json`, with its own lock
 * directory and the same discipline (read, rule, temp file, fsync, check the lock is still ours,
 * rename). Runs on one host share it as they share the claims file.
 */

const micros = z.int().nonnegative();
const SpendFileSchema = z.strictObject({
  version: z.literal(1),
  windows: z.record(
    z.string().regex(/^(day:\d{4}-\d{2}-\d{2}|month:\d{4}-\d{2})$/),
    z.strictObject({
      spent: micros,
      reservations: z.record(z.string().min(1), z.strictObject({ amount: micros, expires: micros })),
    }),
  ),
});

function corrupt(file: string, detail: string, cause?: unknown): CorruptStateError {
  return new CorruptStateError(
    file,
    detail,
    'Delete it to start the spend windows from $0 (today’s and this month’s spend are forgotten), or repair it by hand.',
    { cause },
  );
}

export function parseSpendFile(file: string, text: string): SpendFile {
  return parseStateFile(file, text, { schema: SpendFileSchema, version: 1, what: 'a spend file', corrupt });
}

export async function readSpendFile(file: string): Promise<SpendFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptySpendFile();
    throw err;
  }
  return parseSpendFile(file, text);
}

export function createFileSpendBackend(file: string, lockOptions: FileLockOptions = {}): SpendBackend {
  return createFileStateBackend(file, { read: readSpendFile, lock: lockOptions });
}
