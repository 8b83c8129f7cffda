import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Creates the state directory on first use with a `.gitignore` of `*`, so leases, caches and ledgers
 * never end up in a commit of the checkout they live in.
 */
export async function ensureStateDir(dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true });
  if (created !== undefined) {
    await writeFile(join(dir, '.gitignore'), '# written by issueloop: state is never committed\n*\n', {
      flag: 'wx',
    }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}
