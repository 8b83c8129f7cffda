import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileStateBackend, createMemoryStateBackend } from '../../src/claims/state-backend.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

interface Count {
  n: number;
}

describe('the state backends every store shares', () => {
  it('memory: transactions run one after another, and one that throws writes nothing', async () => {
    const backend = createMemoryStateBackend<Count>({ n: 0 });
    const bump = () => backend.transact(async (s) => ({ result: s.n, next: { n: s.n + 1 } }));
    expect(await Promise.all([bump(), bump(), bump()])).toEqual([0, 1, 2]);
    await expect(
      backend.transact(async () => {
        throw new Error('rule broke');
      }),
    ).rejects.toThrow('rule broke');
    expect(await backend.read()).toEqual({ n: 3 });
    // A snapshot is a copy: changing it changes nothing stored.
    (await backend.read()).n = 99;
    expect(await backend.read()).toEqual({ n: 3 });
  });

  it('file: a missing file is the empty state; next is written as JSON under the lock, made with the directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issueloop-state-'));
    dirs.push(dir);
    const file = join(dir, 'state', 'count.json');
    const read = async (path: string): Promise<Count> =>
      JSON.parse(await readFile(path, 'utf8').catch(() => '{"n":0}')) as Count;
    const swept: number[] = [];
    const backend = createFileStateBackend<Count>(file, {
      read,
      beforeTransact: async (staleMs) => void swept.push(staleMs),
    });
    expect(await backend.read()).toEqual({ n: 0 });
    const bump = () => backend.transact(async (s) => ({ result: s.n, next: { n: s.n + 1 } }));
    expect(await Promise.all([bump(), bump()])).toEqual([0, 1]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ n: 2 });
    expect(await backend.transact(async (s) => ({ result: s.n }))).toBe(2);
    expect(swept).toHaveLength(3);
    expect(swept.every((ms) => ms > 0)).toBe(true);
  });
});
