import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOutcomes } from '../../src/run/read-outcomes.js';
import { fleet, storeOutcomes } from './outcome-fixtures.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const settings = (stateDir: string) => ({
  claims: { store: 'file' as const, max_failures: 3 },
  state_dir: stateDir,
});

describe('readOutcomes: the records of the store the configuration names', () => {
  it('reads what the file store holds, by issue, and none when it has none yet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issueloop-outcomes-'));
    dirs.push(dir);
    expect(await readOutcomes(settings(dir), '/')).toEqual([]);
    const records = fleet();
    await storeOutcomes(dir, records);
    const read = await readOutcomes(settings(dir), '/');
    expect(read.map((r) => r.issue)).toEqual(records.map((r) => r.issue).sort((a, b) => a - b));
    expect(read.find((r) => r.issue === records[0]?.issue)?.sessions).toEqual(records[0]?.sessions);
  });

  it("a corrupt outcomes file is the store's error naming the file, never read as empty", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issueloop-outcomes-'));
    dirs.push(dir);
    await writeFile(join(dir, 'outcomes.json'), 'not json');
    await expect(readOutcomes(settings(dir), '/')).rejects.toThrow(/outcomes\.json/);
  });
});
