import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseClaimsFile } from '../../src/claims/claims-file.js';
import { createClaimStore } from '../../src/claims/create-claim-store.js';
import {
  createFileBackend,
  createFileClaimStore,
  moveClaimsFileAside,
} from '../../src/claims/file-claim-store.js';
import { CorruptStateError } from '../../src/core/errors.js';
import { durableTempName } from '../../src/core/write-file-durably.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { CONTRACT_MAX_FAILURES, describeClaimStoreContract, planterFor } from './claim-store-contract.js';
import { createTempStateDirs } from './temp-state-dirs.js';

const temp = createTempStateDirs();
const stateDir = temp.make;
afterAll(temp.cleanup);

describeClaimStoreContract('file', async (clock, log) => {
  const file = join(await stateDir(), 'claims.json');
  const backend = createFileBackend(file);
  return {
    store: createClaimStore(backend, { clock, log, maxFailures: CONTRACT_MAX_FAILURES }),
    plantLease: planterFor(backend),
    persistedLeases: async () =>
      Object.values((await backend.read()).issues).flatMap((r) => (r.lease ? [r.lease] : [])),
  };
});

const TTL = 60_000;

describe('FileClaimStore', () => {
  it('persists across store instances, as another process would see it', async () => {
    const file = join(await stateDir(), 'claims.json');
    const clock = new FakeClock();
    const a = createFileClaimStore({ file, clock, maxFailures: 3 });
    const result = await a.claim(7, 'a', TTL);
    const b = createFileClaimStore({ file, clock, maxFailures: 3 });
    expect(await b.claim(7, 'b', TTL)).toMatchObject({ ok: false, heldBy: { owner: 'a' } });
    const state = JSON.parse(await readFile(file, 'utf8'));
    expect(state.version).toBe(1);
    expect(state.issues['7'].lease).toEqual(result.ok ? result.lease : undefined);
    expect(state.next_token).toBe(2);
  });

  it('creates the state directory with a .gitignore so state is never committed', async () => {
    const dir = await stateDir();
    await createFileClaimStore({
      file: join(dir, 'claims.json'),
      clock: new FakeClock(),
      maxFailures: 3,
    }).claim(1, 'a', TTL);
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toMatch(/^\*$/m);
  });

  it('does not create the file for a read-only operation on an empty store', async () => {
    const dir = await stateDir();
    const store = createFileClaimStore({
      file: join(dir, 'claims.json'),
      clock: new FakeClock(),
      maxFailures: 3,
    });
    expect(await store.list()).toEqual([]);
    expect(await store.resetFailures(3)).toBe(false);
    expect(await readdir(dir)).not.toContain('claims.json');
  });

  describe('a corrupt or hand-broken file', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['truncated JSON', '{"version": 1, "next_token": 4, "issues": {', /invalid JSON: /],
      ['an empty file', '', /the file is empty/],
      [
        'a field of the wrong type',
        JSON.stringify({ version: 1, next_token: 2, issues: { '7': { issue: 7, failure_count: 'two' } } }),
        /not a claims file: issues\.7\.lease: .*; issues\.7\.failure_count: /,
      ],
      [
        'a record under the wrong key',
        JSON.stringify({
          version: 1,
          next_token: 2,
          issues: {
            '8': {
              issue: 7,
              lease: null,
              failure_count: 0,
              last_failure_at: null,
              failure_reasons: [],
              attempts: 0,
              last_outcome: null,
              interrupted_at: null,
              partial_context: null,
            },
          },
        }),
        /issues\.8\.issue: must be 8/,
      ],
    ];

    it.each(cases)(
      '%s stops the transaction, names the file and the error, and is never overwritten',
      async (_, text, detail) => {
        const file = join(await stateDir(), 'claims.json');
        await mkdir(join(file, '..'), { recursive: true });
        await writeFile(file, text);
        const store = createFileClaimStore({ file, clock: new FakeClock(), maxFailures: 3 });
        const error = await store.claim(7, 'a', TTL).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CorruptStateError);
        expect((error as CorruptStateError).file).toBe(file);
        expect((error as Error).message).toContain(file);
        expect((error as Error).message).toMatch(detail);
        expect((error as Error).message).toMatch(/issueloop reset --claims/);
        await expect(store.list()).rejects.toBeInstanceOf(CorruptStateError);
        await expect(store.recordFailure(7, { errorClass: 'x', message: 'y' })).rejects.toBeInstanceOf(
          CorruptStateError,
        );
        expect(await readFile(file, 'utf8')).toBe(text);
      },
    );

    it('from a newer issueloop says to upgrade, and is not offered to reset', async () => {
      const file = join(await stateDir(), 'claims.json');
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, JSON.stringify({ version: 2, shards: [] }));
      const error = await createFileClaimStore({ file, clock: new FakeClock(), maxFailures: 3 })
        .list()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'newer_version' });
      expect((error as Error).message).toMatch(
        /format version 2 was written by a newer issueloop.*Upgrade issueloop/,
      );
      expect((error as Error).message).not.toContain('reset');
    });

    it('is moved aside byte for byte by moveClaimsFileAside; fencing tokens continue above the old ones', async () => {
      const file = join(await stateDir(), 'claims.json');
      await mkdir(join(file, '..'), { recursive: true });
      const broken = Buffer.concat([
        Buffer.from('{"next_token": 41, "issues": {"3": {"lease": {"token": 57,'),
        Buffer.from([0xff, 0xfe]),
      ]);
      await writeFile(file, broken);
      const now = Date.UTC(2026, 10, 21, 9, 30, 15, 250);
      const moved = await moveClaimsFileAside(file, now);
      expect(moved).toBe(`${file}.corrupt-2026-11-21T09-30-15-250Z`);
      expect(Buffer.compare(await readFile(moved), broken)).toBe(0);
      const store = createFileClaimStore({ file, clock: new FakeClock(), maxFailures: 3 });
      const claimed = await store.claim(7, 'a', TTL);
      expect(claimed.ok && claimed.lease.token).toBe(58);
    });

    it('with no legible token at all, moveClaimsFileAside continues tokens from the clock', async () => {
      const file = join(await stateDir(), 'claims.json');
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, 'garbage');
      const now = Date.UTC(2026, 10, 21);
      await moveClaimsFileAside(file, now);
      const claimed = await createFileClaimStore({ file, clock: new FakeClock(), maxFailures: 3 }).claim(
        1,
        'a',
        TTL,
      );
      expect(claimed.ok && claimed.lease.token).toBe(now);
    });
  });

  it("regression: temp files left by a writer killed mid-write are removed, a live writer's are kept", async () => {
    const dir = await stateDir();
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'claims.json');
    // A pid that ran and is gone, as a writer killed between its temp file and its rename.
    const dead = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.on('error', reject).on('exit', () => resolve(child.pid as number));
    });
    const orphan = durableTempName(file, dead, 1);
    const live = durableTempName(file, process.pid, 999_999);
    await writeFile(orphan, '{"version": 1, "next');
    await writeFile(live, '{"version": 1, "next');
    const log = createMemoryLog();
    const store = createFileClaimStore({ file, clock: new FakeClock(), maxFailures: 3, log });
    // Reading takes no lock and removes nothing.
    await store.list();
    expect((await readdir(dir)).sort()).toContain(basename(orphan));
    expect((await store.claim(1, 'a', TTL)).ok).toBe(true);
    const left = await readdir(dir);
    expect(left).not.toContain(basename(orphan));
    expect(left).toContain(basename(live));
    expect(log.entries).toMatchObject([
      {
        level: 'info',
        msg: 'claims: removed 1 temp file(s) a killed writer left',
        fields: { removed: [orphan] },
      },
    ]);
  });

  it('parses what it writes (round trip through the schema)', async () => {
    const file = join(await stateDir(), 'claims.json');
    const store = createFileClaimStore({ file, clock: new FakeClock(), maxFailures: 3 });
    const claimed = await store.claim(4, 'a', TTL);
    if (!claimed.ok) throw new Error('expected a lease');
    await store.release(claimed.lease, {
      outcome: 'interrupted',
      partialContext: 'half done',
      failure: { errorClass: 'aborted', message: 'SIGTERM' },
    });
    const parsed = parseClaimsFile(file, await readFile(file, 'utf8'));
    expect(parsed.issues['4']).toMatchObject({ partial_context: 'half done', failure_count: 1 });
  });
});
