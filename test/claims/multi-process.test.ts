import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseClaimsFile } from '../../src/claims/claims-file.js';
import { createFileClaimStore } from '../../src/claims/file-claim-store.js';
import { createSeededRandom } from '../../src/core/random.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { onGrants, overlaps, readHeld, startContenders, tokenRegressions } from './multi-process.js';

// 16 processes × 200 claim/release cycles on 8 issues: the issue's contention scenario.
const PROCESSES = 16;
const CYCLES = 200;
const ISSUES = 8;
const TTL = 10 * 60_000;
const CONTENTION = { count: PROCESSES, issues: ISSUES, cycles: CYCLES, ttlMs: TTL };

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-contention-'));
  dirs.push(dir);
  return { dir, file: join(dir, 'state', 'claims.json') };
}

describe('FileClaimStore across processes', () => {
  it('never grants two overlapping leases of one issue to 16 contending processes', {
    timeout: 300_000,
  }, async () => {
    const { dir, file } = await workspace();
    // One contender stalls inside a transaction past the lock's stale time (5 s), as in a long GC
    // pause; the others take the lock over, and its late write must be refused, not applied.
    const staller = 7;
    const contenders = startContenders({
      dir,
      file,
      ...CONTENTION,
      envFor: (i): Record<string, string> =>
        i === staller ? { STALL_IN_TRANSACTION: '40', STALL_MS: '6500' } : {},
    });
    const exits = await Promise.all(contenders.map((c) => c.exit));
    expect(exits.map((e) => e.stderr).join('')).toBe('');
    const stallerLog = await readFile(join(dir, `${contenders[staller]?.owner}.jsonl`), 'utf8');
    expect(stallerLog).toContain('"type":"lock_retry","code":"lock_compromised"');
    expect(exits.map((e) => e.code)).toEqual(Array(PROCESSES).fill(0));

    const held = await readHeld(
      dir,
      contenders.map((c) => c.owner),
    );
    expect(held).toHaveLength(PROCESSES * CYCLES);
    expect(overlaps(held)).toEqual([]);
    expect(tokenRegressions(held)).toEqual([]);
    expect(new Set(held.map((h) => h.token)).size).toBe(held.length);

    const state = parseClaimsFile(file, await readFile(file, 'utf8'));
    expect(Object.values(state.issues).filter((r) => r.lease !== null)).toEqual([]);
    expect(state.next_token).toBe(PROCESSES * CYCLES + 1);
    const attempts = Object.values(state.issues).reduce((sum, r) => sum + r.attempts, 0);
    expect(attempts).toBe(PROCESSES * CYCLES);
  });

  it("survives kill -9 of 10 % of the contenders: the file parses, no granted lease is lost, and a dead holder's lease is claimable after its TTL", {
    timeout: 300_000,
  }, async () => {
    const { dir, file } = await workspace();
    const seed = Number(process.env.CLAIMS_TEST_SEED ?? Date.now() % 1_000_000);
    const random = createSeededRandom(seed);
    const context = (what: string) =>
      `${what} (seed ${seed}, CLAIMS_TEST_SEED=<seed> reproduces the kill points)`;
    // Two of sixteen die at random points: one killed by us while it holds a lease, one killing
    // itself inside a transaction while it holds the lock (nothing written yet).
    const holder = 3;
    const inTransaction = 11;
    // The victim holds each lease 2 s, so the kill lands while it holds one even on a loaded machine.
    const killAtGrant = 1 + Math.floor(random() * 5);
    const dieAtTransaction = 20 + Math.floor(random() * 200);
    const contenders = startContenders({
      dir,
      file,
      ...CONTENTION,
      envFor: (i): Record<string, string> =>
        i === holder
          ? { HOLD_MS: '2000' }
          : i === inTransaction
            ? { DIE_IN_TRANSACTION: String(dieAtTransaction) }
            : {},
    });
    const victim = contenders[holder] as (typeof contenders)[number];
    onGrants(victim, (n) => {
      if (n === killAtGrant) victim.child.kill('SIGKILL');
    });
    const exits = await Promise.all(contenders.map((c) => c.exit));
    const killed = new Set([victim.owner, contenders[inTransaction]?.owner]);
    contenders.forEach((c, i) => {
      if (killed.has(c.owner)) expect(exits[i]?.signal, context(`${c.owner} killed`)).toBe('SIGKILL');
      // Survivors finished all their cycles: the lock the self-killed worker died holding was recovered.
      else expect(exits[i], context(`${c.owner} finished`)).toMatchObject({ code: 0, stderr: '' });
    });

    // The file parses: no torn write, whatever the kills interrupted.
    const state = parseClaimsFile(file, await readFile(file, 'utf8'));
    const leases = Object.values(state.issues).flatMap((r) => (r.lease ? [r.lease] : []));

    const held = await readHeld(
      dir,
      contenders.map((c) => c.owner),
    );
    expect(overlaps(held.filter((h) => h.released)), context('overlapping leases')).toEqual([]);
    expect(tokenRegressions(held), context('tokens that did not grow')).toEqual([]);
    // No lease is lost: the lease the holder was killed with is still on file...
    const unreleased = held.filter((h) => h.end === undefined);
    expect(
      unreleased.map((h) => h.owner),
      context('leases never released'),
    ).toEqual([victim.owner]);
    for (const h of unreleased) {
      expect(leases).toContainEqual(
        expect.objectContaining({ issue: h.issue, owner: h.owner, token: h.token }),
      );
    }
    // ...and only dead workers hold leases (a survivor released everything it was granted).
    for (const lease of leases) expect(killed.has(lease.owner)).toBe(true);

    // A dead holder's lease blocks the issue until its TTL, then anyone can claim it. Earliest expiry
    // first: a claim at one lease's expiry drops every lease expired by then, so checking a later
    // lease first would clear an earlier one before its own "still held" check (a flaky failure).
    const byExpiry = [...leases].sort((a, b) => Date.parse(a.expires_at) - Date.parse(b.expires_at));
    for (const lease of byExpiry) {
      const before = new FakeClock(Date.parse(lease.expires_at) - 1);
      const refused = await createFileClaimStore({ file, clock: before, maxFailures: 3 }).claim(
        lease.issue,
        'rescuer',
        TTL,
      );
      expect(refused).toMatchObject({ ok: false, heldBy: { owner: lease.owner, token: lease.token } });
      const after = new FakeClock(Date.parse(lease.expires_at));
      const granted = await createFileClaimStore({ file, clock: after, maxFailures: 3 }).claim(
        lease.issue,
        'rescuer',
        TTL,
      );
      expect(granted).toMatchObject({ ok: true, lease: { owner: 'rescuer' } });
      expect(granted.ok && granted.lease.token).toBeGreaterThan(lease.token);
    }
  });
});
