import { readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import type { Log } from '../core/logger.js';
import { stateAccessErrorOf } from '../core/state-access.js';
import { ensureStateDir } from '../core/state-dir.js';
import { writeFileDurably } from '../core/write-file-durably.js';

/**
 * The GitHub adapter's files in the state directory (ETag cache, resolved board ids) are caches:
 * losing one costs requests, never correctness. So an unreadable one is moved aside (kept for a
 * look, never overwritten) with a warning, and the run goes on as if it were absent.
 */
export async function readCacheFile<T>(
  file: string,
  schema: z.ZodType<T>,
  ctx: { log: Log; now: number },
): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A state directory that is a file, or unreadable, is the user's to fix (exit 2), not a crash.
    throw (await stateAccessErrorOf(err, { path: file, action: 'read' })) ?? err;
  }
  let problem: string;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    problem = parsed.error.issues[0]?.message ?? 'unexpected shape';
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
  }
  const aside = `${file}.corrupt-${new Date(ctx.now).toISOString().replace(/[:.]/g, '-')}`;
  await rename(file, aside).catch(() => undefined);
  ctx.log.warn(
    { file, movedTo: aside, problem },
    'github: unreadable cache file moved aside; starting empty',
  );
  return undefined;
}

export async function writeCacheFile(file: string, value: unknown): Promise<void> {
  await ensureStateDir(dirname(file));
  await writeFileDurably(file, `${JSON.stringify(value)}\n`);
}
