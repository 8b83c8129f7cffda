import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Fresh `.issueloop` state directory paths (not yet created) under temp dirs, removed by `cleanup`. */
export function createTempStateDirs(): { make: () => Promise<string>; cleanup: () => Promise<void> } {
  const dirs: string[] = [];
  return {
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'issueloop-claims-'));
      dirs.push(dir);
      return join(dir, '.issueloop');
    },
    async cleanup() {
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}
