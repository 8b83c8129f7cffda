import { mkdir, readdir, readFile, rm, stat, utimes } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createClaimStore } from '../../src/claims/create-claim-store.js';
import { LockCompromisedError, LockTimeoutError } from '../../src/claims/errors.js';
import { createFileBackend } from '../../src/claims/file-claim-store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createTempStateDirs } from './temp-state-dirs.js';

const temp = createTempStateDirs();
const stateDir = temp.make;
afterAll(temp.cleanup);

const TTL = 60_000;

/** A lock directory as another live process holds it. */
async function holdAsAnotherProcess(lockPath: string): Promise<void> {
  await mkdir(lockPath);
}

describe('the claims file lock', () => {
  async function seeded() {
    const file = join(await stateDir(), 'claims.json');
    const backend = createFileBackend(file, { staleMs: 2_000, waitMs: 400 });
    const store = createClaimStore(backend, { clock: new FakeClock(), maxFailures: 3 });
    await store.claim(1, 'a', TTL);
    return { file, backend, store, lockPath: `${file}.lock`, before: await readFile(file, 'utf8') };
  }

  it('lives in its own directory next to the data file and is gone after a transaction', async () => {
    const { file, lockPath } = await seeded();
    await expect(stat(lockPath)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await stat(file)).isFile()).toBe(true);
  });

  it('aborts without writing when the lock directory is removed mid-transaction', async () => {
    const { file, backend, lockPath, before } = await seeded();
    const tx = backend.transact(async (current) => {
      await rm(lockPath, { recursive: true });
      return { result: 'written', next: { ...current, next_token: current.next_token + 100 } };
    });
    await expect(tx).rejects.toBeInstanceOf(LockCompromisedError);
    await expect(tx).rejects.toThrow(/was removed.*not written/);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it("regression: a transaction whose lock was taken over writes nothing and leaves the new owner's lock", async () => {
    const { file, backend, lockPath, before } = await seeded();
    const tx = backend.transact(async (current) => {
      // What a process that judged the lock stale does: remove it and make its own.
      await rm(lockPath, { recursive: true });
      await holdAsAnotherProcess(lockPath);
      return { result: 'written', next: { ...current, next_token: current.next_token + 100 } };
    });
    await expect(tx).rejects.toThrow(LockCompromisedError);
    await expect(tx).rejects.toThrow(/another process took the lock over/);
    expect(await readFile(file, 'utf8')).toBe(before);
    expect((await stat(lockPath)).isDirectory()).toBe(true);
  });

  it('regression: a lock found stale mid-transaction aborts the write and is not refreshed afterwards', async () => {
    const { file, backend, lockPath, before } = await seeded();
    // proper-lockfile refreshes a held lock's mtime from a setTimeout. Faked (and only it: Date stays
    // real for the staleness checks), the refresh is seen armed while the lock is held and gone after,
    // with no wait for it to fire.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let armed = 0;
    try {
      const tx = backend.transact(async (current) => {
        armed = vi.getTimerCount();
        const old = new Date(Date.now() - 60_000);
        await utimes(lockPath, old, old);
        return { result: 'written', next: { ...current, next_token: current.next_token + 100 } };
      });
      await expect(tx).rejects.toThrow(/stale/);
      expect(armed).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
      // Were a refresh still due, this would run it.
      vi.runAllTimers();
    } finally {
      vi.useRealTimers();
    }
    expect(await readFile(file, 'utf8')).toBe(before);
    // Not removed (someone may be taking it over right now) and no longer refreshed by us.
    expect((await stat(lockPath)).mtimeMs).toBeLessThan(Date.now() - 50_000);
    // proper-lockfile forgets the lock (no refresh timer, no removal at exit), so the stale
    // directory is simply taken over by the next transaction, here or in another process.
    const internals = createRequire(import.meta.url)('proper-lockfile/lib/lockfile.js') as {
      getLocks(): object;
    };
    expect(Object.keys(internals.getLocks())).toEqual([]);
    const next = await backend.transact((current) => ({ result: current.next_token, next: current }));
    expect(next).toBe(2);
  });

  it("does not remove a new owner's lock after a read-only transaction", async () => {
    const { backend, lockPath } = await seeded();
    const result = await backend.transact(async (current) => {
      await rm(lockPath, { recursive: true });
      await holdAsAnotherProcess(lockPath);
      return { result: current.next_token };
    });
    expect(result).toBe(2);
    expect((await stat(lockPath)).isDirectory()).toBe(true);
  });

  it("does not remove a new owner's lock when the rule throws", async () => {
    const { backend, lockPath } = await seeded();
    const tx = backend.transact(async () => {
      await rm(lockPath, { recursive: true });
      await holdAsAnotherProcess(lockPath);
      throw new Error('rule failed');
    });
    await expect(tx).rejects.toThrow('rule failed');
    expect((await stat(lockPath)).isDirectory()).toBe(true);
  });

  it('recreates a removed state directory at once instead of waiting for the lock to time out', async () => {
    const { file, store } = await seeded();
    await rm(join(file, '..'), { recursive: true });
    // waitMs is 400: an ENOENT retried until the deadline would fail with LockTimeoutError.
    expect((await store.claim(2, 'a', TTL)).ok).toBe(true);
    expect(await readFile(join(file, '..', '.gitignore'), 'utf8')).toContain('*');
  });

  it('gives up with LockTimeoutError while a live process holds the lock', async () => {
    const { store, lockPath } = await seeded();
    await holdAsAnotherProcess(lockPath);
    const error = await store.claim(2, 'a', TTL).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).toContain(lockPath);
    await rm(lockPath, { recursive: true });
    expect((await store.claim(2, 'a', TTL)).ok).toBe(true);
  });

  it('takes over a stale lock left by a crashed process', async () => {
    const { store, lockPath } = await seeded();
    await holdAsAnotherProcess(lockPath);
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath, old, old);
    expect((await store.claim(2, 'a', TTL)).ok).toBe(true);
  });

  it('regression: a lock directory dated in the future is reclaimed after the stale bound', async () => {
    // A lock a year ahead: proper-lockfile alone would wait a year, here waitMs (400) ends with
    // LockTimeoutError long before that.
    const { store, lockPath } = await seeded();
    await holdAsAnotherProcess(lockPath);
    const ahead = new Date(Date.now() + 365 * 86_400_000);
    await utimes(lockPath, ahead, ahead);
    expect((await store.claim(2, 'a', TTL)).ok).toBe(true);
    await expect(stat(lockPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('aborts without writing when its lock is dated far into the future mid-transaction', async () => {
    const { file, backend, lockPath, before } = await seeded();
    const tx = backend.transact(async (current) => {
      const ahead = new Date(Date.now() + 60_000);
      await utimes(lockPath, ahead, ahead);
      return { result: 'written', next: { ...current, next_token: current.next_token + 100 } };
    });
    await expect(tx).rejects.toThrow(/dated in the future.*not written/);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('writes nothing when the rule throws', async () => {
    const { file, backend, before } = await seeded();
    await expect(
      backend.transact(() => {
        throw new Error('rule failed');
      }),
    ).rejects.toThrow('rule failed');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect((await readdir(join(file, '..'))).filter((f) => f.startsWith('claims.json.'))).toEqual([]);
    // The in-process queue goes on after a failed transaction.
    expect(await backend.transact((current) => ({ result: current.next_token }))).toBe(2);
  });
});
