import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../src/claims/claim-store.js';
import { parseClaimsFile } from '../../src/claims/claims-file.js';
import type { ClaimsFile } from '../../src/claims/claims-schema.js';
import { createFileClaimStore } from '../../src/claims/file-claim-store.js';
import { createRedisClaimStore } from '../../src/claims/redis-claim-store.js';
import { createSeededRandom } from '../../src/core/random.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { useRedisServer } from '../helpers/redis-server.js';
import {
  type Contender,
  type Held,
  killAtGrant,
  overlaps,
  readHeld,
  readRefusals,
  startContenders,
  startTogether,
  tokenRegressions,
} from './multi-process.js';

// One contention run per store, started together in beforeAll; every test below reads its results.
// Six processes on this 2-core machine (three per core) contend for three issues, two per issue, so
// contenders keep meeting each other's leases (each test checks they did: refusals by another holder)
// and the lock; 40 cycles each give 240 leases, every consecutive pair of one issue checked for
// overlap on the machine-wide monotonic clock. The rare events volume used to hope for are forced:
// a stall past the lock's stale time, a kill inside a transaction, a kill while holding a lease.
const PROCESSES = 6;
const CYCLES = 40;
const ISSUES = 3;
const TTL = 10 * 60_000;
const CONTENTION = { count: PROCESSES, issues: ISSUES, cycles: CYCLES, ttlMs: TTL };
// The file run's roles; the other three contenders just contend.
const STALLER = 1;
const VICTIM = 2;
const DIER = 4;

const seed = Number(process.env.CLAIMS_TEST_SEED ?? Date.now() % 1_000_000);
const random = createSeededRandom(seed);
const context = (what: string) =>
  `${what} (seed ${seed}, CLAIMS_TEST_SEED=<seed> reproduces the kill points)`;
// Killed at its 1st–5th grant; dead inside its 5th–64th transaction (a worker runs at least 80).
const killAt = 1 + Math.floor(random() * 5);
const dieAt = 5 + Math.floor(random() * 60);

interface Run {
  dir: string;
  contenders: Contender[];
  exits: Awaited<Contender['exit']>[];
  held: Held[];
  refusals: Map<string, number>;
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function contend(file: (dir: string) => string, envFor: (i: number) => Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-contention-'));
  dirs.push(dir);
  const contenders = startContenders({
    dir,
    file: file(dir),
    ...CONTENTION,
    envFor: (i) => ({ START_TOGETHER: '1', ...envFor(i) }),
  });
  // All load and connect first, then all start: none runs its cycles alone.
  startTogether(contenders);
  return { dir, contenders };
}

async function finish({ dir, contenders }: { dir: string; contenders: Contender[] }): Promise<Run> {
  const exits = await Promise.all(contenders.map((c) => c.exit));
  const owners = contenders.map((c) => c.owner);
  return {
    dir,
    contenders,
    exits,
    held: await readHeld(dir, owners),
    refusals: await readRefusals(dir, owners),
  };
}

const redis = useRedisServer();
const redisRepo = `contention/${seed}`;
let fileRun: Run;
let redisRun: Run;
let claimsFile: string;
beforeAll(async () => {
  const files = await contend(
    (dir) => {
      claimsFile = join(dir, 'state', 'claims.json');
      return claimsFile;
    },
    (i): Record<string, string> => ({
      // proper-lockfile's minimum: a dead or stalled holder's lock is taken over after 2 s.
      STALE_MS: '2000',
      ...(i === STALLER ? { STALL_IN_TRANSACTION: '10', STALL_MS: '2600' } : {}),
      ...(i === VICTIM ? { HOLD_UNTIL_TOLD: '1' } : {}),
      ...(i === DIER ? { DIE_IN_TRANSACTION: String(dieAt) } : {}),
    }),
  );
  killAtGrant(files.contenders[VICTIM] as Contender, killAt);
  const keys = await contend(
    () => redis.server.url,
    () => ({ REDIS_REPO: redisRepo }),
  );
  [fileRun, redisRun] = await Promise.all([finish(files), finish(keys)]);
}, 240_000);

/** The properties both stores must keep under contention. */
function expectNoDoubleGrants(run: Run) {
  expect(overlaps(run.held), context('overlapping leases')).toEqual([]);
  expect(tokenRegressions(run.held), context('tokens that did not grow')).toEqual([]);
  // Every grant has its own token, and none was skipped: each token handed out is one logged grant.
  const tokens = run.held.map((h) => h.token).sort((a, b) => a - b);
  expect(tokens).toEqual(Array.from({ length: run.held.length }, (_, i) => i + 1));
  // The contenders met: each one that finished found issues held by others, so the property was
  // really contested (a killed one may have died before its first refusal).
  const finished = run.contenders.filter((_, i) => run.exits[i]?.code === 0);
  expect(finished.length).toBeGreaterThanOrEqual(PROCESSES - 2);
  for (const { owner } of finished)
    expect(run.refusals.get(owner), `${owner} was never refused`).toBeGreaterThan(0);
}

describe('FileClaimStore across processes', () => {
  const killed = () => new Set([VICTIM, DIER].map((i) => fileRun.contenders[i]?.owner));
  const state = async (): Promise<ClaimsFile> =>
    parseClaimsFile(claimsFile, await readFile(claimsFile, 'utf8'));

  it('never grants two overlapping leases of one issue to contending processes, with one stalled and two killed', async () => {
    expectNoDoubleGrants(fileRun);
    expect(fileRun.held.length).toBeGreaterThanOrEqual((PROCESSES - 2) * CYCLES + killAt);
  });

  it('the survivors finish all their cycles: the lock a worker died holding was recovered', () => {
    fileRun.contenders.forEach((c, i) => {
      const exit = fileRun.exits[i];
      if (killed().has(c.owner))
        expect(exit, context(`${c.owner} killed`)).toMatchObject({ signal: 'SIGKILL', stderr: '' });
      else expect(exit, context(`${c.owner} finished`)).toMatchObject({ code: 0, stderr: '' });
      if (!killed().has(c.owner))
        expect(fileRun.held.filter((h) => h.owner === c.owner)).toHaveLength(CYCLES);
    });
  });

  it("a holder stalled past the lock's stale time has its late write refused (lock_compromised) and retries", async () => {
    const log = await readFile(join(fileRun.dir, `${fileRun.contenders[STALLER]?.owner}.jsonl`), 'utf8');
    expect(log).toContain('"type":"lock_retry","code":"lock_compromised"');
  });

  it('the file parses and keeps every lease not released: the victim’s, nothing of a survivor, nothing twice', async () => {
    const current = await state();
    const leases = Object.values(current.issues).flatMap((r) => (r.lease ? [r.lease] : []));
    const unreleased = fileRun.held.filter((h) => !h.released);
    expect(unreleased.map((h) => h.owner)).toContain(fileRun.contenders[VICTIM]?.owner);
    expect(leases.map((l) => [l.issue, l.owner, l.token]).sort()).toEqual(
      unreleased.map((h) => [h.issue, h.owner, h.token]).sort(),
    );
    expect(current.next_token).toBe(fileRun.held.length + 1);
    expect(Object.values(current.issues).reduce((sum, r) => sum + r.attempts, 0)).toBe(fileRun.held.length);
  });

  it("a dead holder's lease blocks its issue until its TTL, then anyone can claim it", async () => {
    const leases = Object.values((await state()).issues).flatMap((r) => (r.lease ? [r.lease] : []));
    expect(leases.length).toBeGreaterThan(0);
    // Earliest expiry first: a claim at one lease's expiry drops every lease expired by then.
    const byExpiry = [...leases].sort((a, b) => Date.parse(a.expires_at) - Date.parse(b.expires_at));
    for (const lease of byExpiry) await expectHeldUntilExpiry(claimsFile, lease);
  });
});

async function expectHeldUntilExpiry(file: string, lease: Lease) {
  const at = (ms: number) => createFileClaimStore({ file, clock: new FakeClock(ms), maxFailures: 3 });
  const expiry = Date.parse(lease.expires_at);
  const refused = await at(expiry - 1).claim(lease.issue, 'rescuer', TTL);
  expect(refused).toMatchObject({ ok: false, heldBy: { owner: lease.owner, token: lease.token } });
  const granted = await at(expiry).claim(lease.issue, 'rescuer', TTL);
  expect(granted).toMatchObject({ ok: true, lease: { owner: 'rescuer' } });
  expect(granted.ok && granted.lease.token).toBeGreaterThan(lease.token);
}

describe('RedisClaimStore across processes', () => {
  it('never grants two overlapping leases of one issue to contending processes', async () => {
    expect(redisRun.exits).toEqual(Array(PROCESSES).fill({ code: 0, signal: null, stderr: '' }));
    expect(redisRun.held).toHaveLength(PROCESSES * CYCLES);
    expectNoDoubleGrants(redisRun);
  });

  it('leaves no lease behind and counts every attempt', async () => {
    const store = createRedisClaimStore({
      url: redis.server.url,
      repo: redisRepo,
      clock: { now: () => Date.now() },
      maxFailures: 3,
    });
    try {
      const views = await store.list();
      expect(views.map((v) => v.issue)).toEqual(Array.from({ length: ISSUES }, (_, i) => i + 1));
      expect(views.filter((v) => v.lease !== null)).toEqual([]);
      expect(views.reduce((sum, v) => sum + v.attempts, 0)).toBe(PROCESSES * CYCLES);
    } finally {
      await store.close();
    }
  });
});
