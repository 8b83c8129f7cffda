import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeOrphanTemps } from '../../src/core/remove-orphan-temps.js';
import { durableTempName, durableTempWriter } from '../../src/core/write-file-durably.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'issueloop-orphans-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const NOW = Date.UTC(2026, 10, 21, 12);
const DEAD = 4_000_001;
const LIVE = 4_000_002;
const isAlive = (pid: number) => pid === LIVE;

async function touch(path: string, ageMs: number): Promise<void> {
  await writeFile(path, '{"half":');
  const at = new Date(NOW - ageMs);
  await utimes(path, at, at);
}

describe('removeOrphanTemps', () => {
  it("removes a dead writer's temp files and abandoned ones, keeps a live writer's and anything else", async () => {
    const dir = join(root, 'a');
    await mkdir(dir);
    const file = join(dir, 'claims.json');
    await touch(file, 0);
    await touch(durableTempName(file, DEAD, 1), 0);
    await touch(durableTempName(file, LIVE, 2), 60_000);
    await touch(durableTempName(file, LIVE, 3), 1_000);
    // Not claims.json's temp files: another file's, a backup, an aside copy's, the lock.
    await touch(durableTempName(join(dir, 'board.json'), DEAD, 1), 60_000);
    await touch(join(dir, 'claims.json.bak'), 60_000);
    await touch(durableTempName(join(dir, 'claims.json.corrupt-2026-11-21T12-00-00-000Z'), DEAD, 4), 60_000);
    await mkdir(join(dir, 'claims.json.lock'));

    const removed = await removeOrphanTemps(file, { now: NOW, abandonedAfterMs: 10_000, isAlive });
    expect(removed.sort()).toEqual([durableTempName(file, DEAD, 1), durableTempName(file, LIVE, 2)].sort());
    expect((await readdir(dir)).sort()).toEqual(
      [
        'board.json.4000001.1.tmp',
        'claims.json',
        'claims.json.4000002.3.tmp',
        'claims.json.bak',
        'claims.json.corrupt-2026-11-21T12-00-00-000Z.4000001.4.tmp',
        'claims.json.lock',
      ].sort(),
    );
  });

  it('reads the names writeFileDurably gives', () => {
    expect(durableTempWriter('claims.json', 'claims.json.123.7.tmp')).toBe(123);
    expect(durableTempWriter('claims.json', 'claims.json.x.7.tmp')).toBeUndefined();
    expect(durableTempWriter('claims.json', 'claims.jsonx.123.7.tmp')).toBeUndefined();
    expect(durableTempWriter('claims.json', 'claims.json.123.7.tmp.bak')).toBeUndefined();
  });
});
