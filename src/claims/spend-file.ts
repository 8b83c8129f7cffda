import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { CorruptStateError } from '../core/errors.js';
import { withStateAccess } from '../core/state-access.js';
import { ensureStateDir } from '../core/state-dir.js';
import { writeFileDurably } from '../core/write-file-durably.js';
import { createFileLock, type FileLockOptions } from './file-lock.js';
import { emptySpendFile, type SpendBackend, type SpendFile } from './spend-ledger.js';

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

function corrupt(file: string, detail: string): CorruptStateError {
  return new CorruptStateError(
    file,
    detail,
    'Delete it to start the spend windows from $0 (today’s and this month’s spend are forgotten), or repair it by hand.',
  );
}

export function parseSpendFile(file: string, text: string): SpendFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw corrupt(file, `invalid JSON: ${(err as Error).message}`);
  }
  const parsed = SpendFileSchema.safeParse(data);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw corrupt(file, `not a spend file: ${first?.path.join('.') || '(top level)'}: ${first?.message}`);
  }
  return parsed.data;
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
  const lock = createFileLock(file, { ...lockOptions, prepareDir: () => ensureStateDir(dirname(file)) });
  return {
    transact: (fn) =>
      withStateAccess({ path: file, action: 'write' }, () =>
        lock.withLock(async (held) => {
          const tx = await fn(await readSpendFile(file));
          if (tx.next) {
            const text = `${JSON.stringify(tx.next, null, 2)}\n`;
            await writeFileDurably(file, text, { beforeRename: () => held.assertHeld() });
          }
          return tx.result;
        }),
      ),
    read: () => withStateAccess({ path: file, action: 'read' }, () => readSpendFile(file)),
  };
}
