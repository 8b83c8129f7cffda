import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimStore } from '../../src/claims/claim-store.js';
import { createRedisClaimStore } from '../../src/claims/redis-claim-store.js';
import type { SpendLedger } from '../../src/claims/spend-ledger.js';
import { createRedisSpendLedger } from '../../src/claims/spend-redis.js';
import { planDryRun, renderDryRun } from '../../src/cli/commands/dry-run.js';
import { renderRunSummary } from '../../src/run/run-summary.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { reservationTtl } from '../../src/scheduler/spend-gate.js';
import { openLedger } from '../../src/session/ledger.js';
import type { FakeClock } from '../helpers/fake-clock.js';
import { useRedisServer } from '../helpers/redis-server.js';
import { member, roundsFixture } from './rounds-fixture.js';

const { repo: checkout, setup } = roundsFixture();
const redis = useRedisServer();
const opened: Array<ClaimStore | SpendLedger> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

// An emulated session (one model call, nothing to change) costs about $0.0017: a session's cap of
// $0.002 is reserved for each, and the shared daily cap is a handful of them.
const MAX_USD = 0.002;
const DAILY_USD = 0.01;

/** A fixture whose runners share one Redis (claims and spend) under a fresh key prefix. */
async function sharedRedis(config: Record<string, unknown> = {}) {
  const fixture = await setup({
    empty_rounds: 2,
    session: { max_usd: MAX_USD },
    budget: { daily_usd: DAILY_USD },
    // One session per claim: these sessions change nothing, and best-of-N would make each retry a
    // claim of three reservations (its own test: best-of-n-rounds, attempt-gate).
    attempts: { n: 1 },
    ...config,
  });
  const repo = `test/${randomUUID()}`;
  const { clock } = fixture;
  const caps = fixture.gh.config.budget;
  const spendOn = () => {
    const spend = createRedisSpendLedger({ url: redis.server.url, repo, caps, clock });
    opened.push(spend);
    return spend;
  };
  /** One runner: its own connections, view of GitHub and ledger, on the shared store and emulator. */
  const runner = async (owner: string) => {
    const claims = createRedisClaimStore({ url: redis.server.url, repo, clock, maxFailures: 3 });
    opened.push(claims);
    const ledger = await openLedger({
      stateDir: checkout.stateDir,
      runId: `${owner}-${randomUUID()}`,
      clock,
      redact: fixture.ctx.redact,
    });
    const ctx = { ...fixture.ctx, source: fixture.newSource(), claims, spend: spendOn(), ledger };
    return () => runRounds(ctx, { owner });
  };
  return { ...fixture, runner, spendOn, clock: clock as FakeClock };
}

const spentOf = (reports: ReadonlyArray<{ costUsd: number }>) =>
  reports.reduce((sum, r) => sum + r.costUsd, 0);

describe('spend caps across runners sharing one Redis', () => {
  it('two runners with a daily cap stop together at the cap, within one session’s reservation; the window reopens at midnight UTC', async () => {
    const fixture = await sharedRedis();
    for (const title of ['Improve everything', 'Polish the docs', 'Tidy the tests', 'Rename a thing']) {
      fixture.gh.emulator.addIssue(member(title));
    }
    const [a, b] = [await fixture.runner('host-a:1'), await fixture.runner('host-b:2')];
    const [first, second] = await Promise.all([a(), b()]);

    expect([first.stop, second.stop]).toEqual(['budget', 'budget']);
    // Both runners worked: the cap was shared, not one runner's alone.
    expect(first.reports.length).toBeGreaterThan(0);
    expect(second.reports.length).toBeGreaterThan(0);
    const spent = spentOf([...first.reports, ...second.reports]);
    const [day] = await fixture.spendOn().windows();
    expect(day?.spent_usd).toBeCloseTo(spent, 6);
    expect(day?.reserved_usd).toBe(0);
    expect(spent).toBeLessThanOrEqual(DAILY_USD);
    expect(DAILY_USD - spent).toBeLessThan(MAX_USD);
    // Whichever runner is refused first may see the other's session still reserved.
    expect(first.stopDetail).toMatch(
      /^daily cap \$0\.01 reached \(\$0\.\d+ spent, \$[\d.]+ reserved\); the window reopens at 2026-11-22 00:00 UTC, in \d+h \d\dm$/,
    );

    // The summary says which cap stopped the run and when it reopens; --dry-run shows what is left.
    const text = renderRunSummary(first, undefined, 'ledger.jsonl');
    expect(text.split('\n').slice(0, 2)).toEqual([
      `issueloop run: spend cap reached: no new claims after ${first.rounds} round(s)`,
      first.stopDetail,
    ]);
    const plan = await planDryRun({
      github: fixture.gh.adapter,
      claims: fixture.ctx.claims,
      spend: fixture.spendOn(),
      config: fixture.gh.config,
      stateDir: checkout.stateDir,
      now: fixture.clock.now(),
    });
    expect(plan.budget?.[0]).toMatchObject({ kind: 'day', cap_usd: DAILY_USD, reserved_usd: 0 });
    expect(plan.budget?.[0]?.left_usd).toBeCloseTo(DAILY_USD - spent, 6);
    expect(renderDryRun(plan)).toContain(
      `spend caps (shared by every runner on this claim store):\n  daily cap $0.01: $${Number((DAILY_USD - spent).toFixed(6))} left`,
    );

    // The next UTC day: a runner claims again.
    fixture.clock.advance(Date.UTC(2026, 10, 22) - fixture.clock.now());
    const next = await (await fixture.runner('host-a:3'))();
    expect(next.reports.length).toBeGreaterThan(0);
    const [tomorrow] = await fixture.spendOn().windows();
    expect(tomorrow).toMatchObject({ key: 'day:2026-11-22' });
    expect(tomorrow?.spent_usd).toBeCloseTo(spentOf(next.reports), 6);
  });

  it("a crashed runner's reservation holds the cap only until it lapses", async () => {
    const fixture = await sharedRedis({ budget: { daily_usd: 0.003 } });
    fixture.gh.emulator.addIssue(member('Improve everything'));
    // A runner reserved a session and died: nothing will ever settle it.
    const crashed = await fixture
      .spendOn()
      .reserve('dead-host:9#1#1', MAX_USD, reservationTtl(fixture.gh.config));
    expect(crashed.ok).toBe(true);

    const blocked = await (await fixture.runner('host-a:1'))();
    expect(blocked.stop).toBe('budget');
    expect(blocked.reports).toEqual([]);
    expect(blocked.stopDetail).toContain('daily cap $0.003 reached ($0 spent, $0.002 reserved)');

    fixture.clock.advance(reservationTtl(fixture.gh.config));
    const after = await (await fixture.runner('host-a:2'))();
    expect(after.reports.map((r) => r.outcome)).toContain('no_changes');
  });
});
