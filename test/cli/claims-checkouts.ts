import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClaimStore } from '../../src/claims/claim-store.js';
import { createFileClaimStore } from '../../src/claims/file-claim-store.js';

export const HOUR = 3_600_000;

/** Temporary checkouts for CLI tests of the claim store, removed by `cleanup`. */
export function createClaimsCheckouts() {
  const dirs: string[] = [];
  async function tempCwd(): Promise<string> {
    const cwd = await mkdtemp(join(tmpdir(), 'issueloop-claims-cli-'));
    dirs.push(cwd);
    return cwd;
  }
  /** A checkout whose claims file holds: #7 leased by host-a:1, #5 failed three times, #9 interrupted. */
  async function checkout(config = ''): Promise<{ cwd: string; file: string; store: ClaimStore }> {
    const cwd = await tempCwd();
    if (config) await writeFile(join(cwd, 'issueloop.config.yaml'), config);
    const stateDir = /state_dir: (.+)/.exec(config)?.[1] ?? '.issueloop';
    const file = join(cwd, stateDir, 'claims.json');
    const store = createFileClaimStore({ file, clock: { now: () => Date.now() }, maxFailures: 3 });
    const claimed = await store.claim(7, 'host-a:1', HOUR);
    if (!claimed.ok) throw new Error('seeding failed');
    for (const n of [1, 2, 3]) {
      await store.recordFailure(5, {
        errorClass: 'verify_failed',
        message: `npm test failed (attempt ${n})`,
      });
    }
    const nine = await store.claim(9, 'host-b:2', HOUR);
    if (nine.ok) await store.release(nine.lease, { outcome: 'interrupted', partialContext: 'half way' });
    return { cwd, file, store };
  }
  async function cleanup(): Promise<void> {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
  return { tempCwd, checkout, cleanup };
}
