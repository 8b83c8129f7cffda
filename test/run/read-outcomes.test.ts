import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryClaimStore } from '../../src/claims/memory-claim-store.js';
import { readOutcomes } from '../../src/run/read-outcomes.js';
import { fleet } from './outcome-fixtures.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const store = () => createMemoryClaimStore({ clock: { now: () => 0 }, maxFailures: 3 });

describe('readOutcomes, the seam between the figures and the outcome store', () => {
  it("reads an opened store's outcome list when it carries one", async () => {
    const records = fleet();
    const read = await readOutcomes({
      store: store(),
      location: 'memory',
      outcomes: { list: async () => records },
    });
    expect(read).toBe(records);
  });

  it("reads outcomes.json beside a file store's claims file, and none when it is absent", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issueloop-outcomes-'));
    dirs.push(dir);
    const opened = { store: store(), location: dir, file: join(dir, 'claims.json') };
    expect(await readOutcomes(opened)).toEqual([]);
    await writeFile(join(dir, 'outcomes.json'), JSON.stringify({ records: fleet() }));
    expect((await readOutcomes(opened)).map((r) => r.issue)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // The outcome store's own file: records by issue number under a format version.
    const issues = Object.fromEntries(fleet().map((r) => [String(r.issue), r]));
    await writeFile(join(dir, 'outcomes.json'), JSON.stringify({ version: 1, issues }));
    expect((await readOutcomes(opened)).map((r) => r.issue)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await writeFile(join(dir, 'outcomes.json'), JSON.stringify({ version: 1 }));
    await expect(readOutcomes(opened)).rejects.toThrow('no list of outcome records');
  });

  it('a store without a file or an outcome list (Redis, before the outcome store) gives none', async () => {
    expect(await readOutcomes({ store: store(), location: 'redis://127.0.0.1:6379 (acme/widgets)' })).toEqual(
      [],
    );
  });

  it('a file that is not JSON is a corrupt-state error naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issueloop-outcomes-'));
    dirs.push(dir);
    await writeFile(join(dir, 'outcomes.json'), '{"records": [');
    await expect(
      readOutcomes({ store: store(), location: dir, file: join(dir, 'claims.json') }),
    ).rejects.toThrow(`${join(dir, 'outcomes.json')} is unreadable: not JSON`);
  });
});
