import { mkdir, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLockDirFs } from '../../src/claims/lock-dir-fs.js';

const STALE_MS = 5_000;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-lockdir-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function control(onMissingParent: () => Promise<void> = async () => undefined) {
  const c = createLockDirFs({ staleMs: STALE_MS, onMissingParent });
  return {
    ...c,
    mkdir: promisify(c.fs.mkdir) as (path: string) => Promise<void>,
    /** What proper-lockfile's stale takeover calls. */
    removeStale: promisify(c.fs.rmdir) as (path: string) => Promise<void>,
  };
}

async function lockDir(name: string, ageMs = 0): Promise<string> {
  const path = join(dir, name);
  await mkdir(path);
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    await utimes(path, then, then);
  }
  return path;
}

const entries = async (prefix: string) => (await readdir(dir)).filter((f) => f.startsWith(prefix)).sort();

describe('taking over a stale lock', () => {
  it('removes a lock that is still stale, and its guard afterwards', async () => {
    const lock = await lockDir('a.lock', 60_000);
    await control().removeStale(lock);
    expect(await entries('a.lock')).toEqual([]);
  });

  it('regression: refuses to remove a lock that another taker has just made fresh (ELOCKED)', async () => {
    // Two processes saw the old lock stale; the faster one replaced it. The slower one's removal
    // would delete that fresh lock and leave both believing they hold it.
    const lock = await lockDir('b.lock');
    await expect(control().removeStale(lock)).rejects.toMatchObject({ code: 'ELOCKED' });
    expect(await entries('b.lock')).toEqual(['b.lock']);
  });

  it('waits while another takeover is under way, and clears a guard left by a dead taker', async () => {
    const lock = await lockDir('c.lock', 60_000);
    const guard = await lockDir('c.lock.takeover');
    await expect(control().removeStale(lock)).rejects.toMatchObject({ code: 'ELOCKED' });
    expect(await entries('c.lock')).toEqual(['c.lock', 'c.lock.takeover']);
    const old = new Date(Date.now() - 60_000);
    await utimes(guard, old, old);
    await expect(control().removeStale(lock)).rejects.toMatchObject({ code: 'ELOCKED' });
    expect(await entries('c.lock')).toEqual(['c.lock']);
    await control().removeStale(lock);
    expect(await entries('c.lock')).toEqual([]);
  });
});

describe('a lock dated in the future', () => {
  async function datedAhead(name: string, aheadMs: number): Promise<string> {
    const path = join(dir, name);
    await mkdir(path);
    const then = new Date(Date.now() + aheadMs);
    await utimes(path, then, then);
    return path;
  }

  it('regression: one dated further ahead than the stale bound is taken over when the lock is made', async () => {
    const lock = await datedAhead('f.lock', 365 * 86_400_000);
    await control().mkdir(lock);
    expect(await entries('f.lock')).toEqual(['f.lock']);
    // The directory is this mkdir's: dated now, not a year ahead.
    expect((await stat(lock)).mtimeMs).toBeLessThan(Date.now() + 1_000);
  });

  it('one dated a little ahead is held until this process has seen it unchanged for the stale bound', async () => {
    let now = Date.now();
    const c = createLockDirFs({ staleMs: STALE_MS, onMissingParent: async () => undefined, now: () => now });
    const make = promisify(c.fs.mkdir) as (path: string) => Promise<void>;
    const lock = await datedAhead('g.lock', 2_000);
    await expect(make(lock)).rejects.toMatchObject({ code: 'EEXIST' });
    now += STALE_MS;
    await make(lock);
    expect(await entries('g.lock')).toEqual(['g.lock']);
  });
});

describe('releasing', () => {
  it("removes the holder's own lock, or keeps it when it may be another's", async () => {
    const c = control();
    const lock = await lockDir('d.lock');
    await c.releasing(() => promisify(c.fs.rmdir)(lock), { keepDirectory: true });
    expect(await entries('d.lock')).toEqual(['d.lock']);
    await c.releasing(() => promisify(c.fs.rmdir)(lock), { keepDirectory: false });
    expect(await entries('d.lock')).toEqual([]);
  });
});

it('recreates a missing parent directory through the callback, then makes the lock', async () => {
  const parent = join(dir, 'gone');
  let called = 0;
  const c = control(async () => {
    called += 1;
    await mkdir(parent, { recursive: true });
  });
  await c.mkdir(join(parent, 'e.lock'));
  expect(called).toBe(1);
  expect(await readdir(parent)).toEqual(['e.lock']);
});
