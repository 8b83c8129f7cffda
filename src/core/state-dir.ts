import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { withStateAccess } from './state-access.js';

/**
 * Creates the state directory on first use with a `.gitignore` of `*`, so leases, caches and ledgers
 * never end up in a commit of the checkout they live in. A directory that cannot be made (read-only,
 * no permission, a file in its place) is a `StateAccessError` naming the path and the fix.
 */
export async function ensureStateDir(dir: string): Promise<void> {
  await withStateAccess({ path: dir, action: 'write' }, async () => {
    const created = await mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) =>
      err.code === 'ENOENT' ? mkdirOneLevelAtATime(dir, err) : Promise.reject(err),
    );
    if (created !== undefined) {
      await writeFile(join(dir, '.gitignore'), '# written by issueloop: state is never committed\n*\n', {
        flag: 'wx',
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    }
  });
}

/**
 * Node's recursive mkdir reports a read-only file system (EROFS) as ENOENT; making the missing levels
 * one at a time gives the real error, or makes the directory if it was a passing race.
 */
async function mkdirOneLevelAtATime(dir: string, reported: Error): Promise<string | undefined> {
  const missing: string[] = [];
  for (
    let p = dir;
    !(await stat(p).then(
      () => true,
      () => false,
    ));
    p = dirname(p)
  ) {
    if (dirname(p) === p) throw reported;
    missing.unshift(p);
  }
  for (const level of missing) {
    await mkdir(level).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  return missing[0];
}
