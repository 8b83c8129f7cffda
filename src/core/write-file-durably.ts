import { open, rename, rm } from 'node:fs/promises';

let sequence = 0;

/** The temp file `writeFileDurably` writes `file` through: `<file>.<writer pid>.<n>.tmp`. */
export function durableTempName(file: string, pid: number, n: number): string {
  return `${file}.${pid}.${n}.tmp`;
}

/** The writer's pid when `name` is the temp file name of `fileName` (both bare names), else undefined. */
export function durableTempWriter(fileName: string, name: string): number | undefined {
  if (!name.startsWith(`${fileName}.`)) return undefined;
  const match = /^(\d+)\.\d+\.tmp$/.exec(name.slice(fileName.length + 1));
  return match ? Number(match[1]) : undefined;
}

/**
 * Replaces `file` with `data` so that a reader sees either the old or the new content, never a
 * torn mix, and the new content is on disk before the name points at it: write a temp file in the
 * same directory, fsync it, rename it over the target. This is write-file-atomic's core without its
 * realpath/stat/chown/chmod round trips, which doubled the cost of every claim (see bench/claims).
 * The temp file is removed when anything fails; one left by a killed process is inert, and the claim
 * store removes its own (remove-orphan-temps.ts).
 * The directory is not fsynced after the rename: after a power loss the file may be the previous
 * version, which is whole, and every process that held what the lost version recorded died too.
 */
export async function writeFileDurably(
  file: string,
  data: string | Uint8Array,
  options: {
    /** Runs after the data is on disk and before the rename; throwing aborts, leaving `file` as it was. */
    beforeRename?: () => Promise<void>;
  } = {},
): Promise<void> {
  sequence += 1;
  const temp = durableTempName(file, process.pid, sequence);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.();
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
