import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileClaimStore } from '../../src/claims/file-claim-store.js';
import { createFileLock } from '../../src/claims/file-lock.js';
import { StateAccessError } from '../../src/core/errors.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createTempStateDirs } from './temp-state-dirs.js';

const temp = createTempStateDirs();
afterAll(temp.cleanup);

// Retrying until this deadline ends in LockTimeoutError, which these tests tell apart from the cause.
const WAIT_MS = 5_000;

function store(file: string) {
  return createFileClaimStore({ file, clock: new FakeClock(), maxFailures: 3, lock: { waitMs: WAIT_MS } });
}

const failureOf = (work: () => Promise<unknown>): Promise<unknown> =>
  work().then(
    () => undefined,
    (e: unknown) => e,
  );

describe('a state path of the wrong kind', () => {
  it('regression: a claims.json that is a directory stops every operation at once, naming it', async () => {
    const dir = await temp.make();
    const file = join(dir, 'claims.json');
    await mkdir(file, { recursive: true });
    const claims = store(file);
    for (const work of [() => claims.claim(7, 'a', 60_000), () => claims.list(), () => claims.get(7)]) {
      const error = await failureOf(work);
      expect(error).toBeInstanceOf(StateAccessError);
      expect(error).toMatchObject({ path: file, problem: 'is_directory' });
      expect((error as Error).message).toContain(`${file} is a directory`);
    }
    expect(await readdir(file)).toEqual([]);
  });

  it('regression: a state directory that is a file stops at once instead of retrying the lock', async () => {
    const dir = await temp.make();
    await mkdir(join(dir, '..'), { recursive: true });
    await writeFile(dir, 'oops');
    const claims = store(join(dir, 'claims.json'));
    for (const work of [() => claims.claim(7, 'a', 60_000), () => claims.list()]) {
      const error = await failureOf(work);
      expect(error).toBeInstanceOf(StateAccessError);
      expect(error).toMatchObject({ path: dir, problem: 'not_directory' });
      expect((error as Error).message).toMatch(/is a file, but issueloop needs a directory there/);
    }
  });
});

describe('the file lock', () => {
  it('regression: a lock directory that cannot be made fails at once with the cause, not after the wait', async () => {
    const dir = await temp.make();
    const readOnly = Object.assign(new Error(`EROFS: read-only file system, mkdir '${dir}'`), {
      code: 'EROFS',
      path: dir,
    });
    let attempts = 0;
    const lock = createFileLock(join(dir, 'claims.json'), {
      waitMs: WAIT_MS,
      // The state directory is missing and cannot be made: what a read-only parent gives.
      prepareDir: async () => {
        attempts += 1;
        throw readOnly;
      },
    });
    const error = await failureOf(() => lock.withLock(async () => 'held'));
    expect(error).toBe(readOnly);
    expect(attempts).toBe(1);
  });
});
