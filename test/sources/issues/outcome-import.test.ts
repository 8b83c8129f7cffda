import { describe, expect, it } from 'vitest';
import { createMemoryOutcomeStore } from '../../../src/claims/file-outcome-store.js';
import type { OutcomeStore } from '../../../src/claims/outcome-store.js';
import { parseTrackingRecord } from '../../../src/github/tracking-comment.js';
import { outcomeReport } from '../../../src/run/outcome-report.js';
import { runRounds } from '../../../src/scheduler/run-rounds.js';
import { createIssueSource } from '../../../src/sources/issues/issue-source.js';
import { keepPullOutcomes } from '../../../src/sources/issues/pull-outcomes.js';
import { sessionEntry, trackedSession } from '../../../src/sources/issues/session-entries.js';
import { session } from '../../run/outcome-fixtures.js';
import { member, roundsFixture, watched } from '../../scheduler/rounds-fixture.js';

const { repo, setup } = roundsFixture();

type Job = Awaited<ReturnType<typeof setup>>;

/** One job's run on its own claim store and outcome store (as every Actions job without a cache). */
async function run(job: Job, outcomes: OutcomeStore, owner: string) {
  const source = createIssueSource({
    github: job.gh.adapter,
    config: job.gh.config,
    redact: job.ctx.redact,
    checkout: repo.fx.checkout,
    remote: 'origin',
    baseBranch: 'main',
    log: job.log,
    clock: job.clock,
    outcomes,
  });
  return runRounds({ ...job.ctx, source }, { owner });
}

const DAY = 86_400_000;

describe("a fresh store imports the dollars of the sessions an issue's tracking comment lists", () => {
  it('session entries survive the trip through the comment unchanged', () => {
    const entry = session('2026-11-02T00:00:00.000Z', 0.375, {
      kind: 'review_followup',
      engine: 'claude-code',
      models: ['a', 'b'],
      cache_read_tokens: 7,
      cache_write_tokens: 9,
    });
    expect(sessionEntry(trackedSession(entry))).toEqual(entry);
  });

  it("report on the next job's fresh store gives the same dollars per merged PR as on the store that recorded them", async () => {
    const first = await setup(watched());
    const issue = first.gh.emulator.addIssue(member('Fix the greeting typo'));
    const recorded = createMemoryOutcomeStore();
    const summary = await run(first, recorded, 'host:1');
    expect(summary.reports.map((r) => r.outcome)).toEqual(['resolved']);
    const pr = first.gh.emulator.pulls().find((p) => p.head.ref === `issueloop/issue-${issue}`);
    if (!pr) throw new Error('setup: no pull request');
    first.gh.emulator.mergePull(pr.number, 'maintainer');
    await keepPullOutcomes(
      {
        github: first.gh.adapter,
        outcomes: recorded,
        config: first.gh.config,
        log: first.log,
        redact: first.ctx.redact,
        now: () => first.clock.now(),
      },
      [...(await first.gh.adapter.pullWatch.ownPulls())],
    );

    // The next job: a new claim store and outcome store; its sweep books the merge (rewriting the
    // comment) and imports the record.
    const next = await setup(watched(), first.gh.emulator, first.clock);
    const fresh = createMemoryOutcomeStore();
    await run(next, fresh, 'host:2');

    const kept = await recorded.get(issue);
    const imported = await fresh.get(issue);
    expect(kept?.sessions).toHaveLength(1);
    expect(kept?.sessions[0]?.usd).toBeGreaterThan(0);
    expect(imported?.sessions).toEqual(kept?.sessions);
    expect(imported?.pull?.state).toBe('merged');
    expect(Date.parse(imported?.first_claimed_at ?? '')).toBeLessThanOrEqual(
      Date.parse(kept?.sessions[0]?.at ?? ''),
    );
    const window = { since: '30d', sinceMs: 30 * DAY, now: first.clock.now() };
    const before = outcomeReport(kept ? [kept] : [], window).total;
    const after = outcomeReport(imported ? [imported] : [], window).total;
    // The report rounds its dollars; the session's are below a cent apart from that.
    expect(before.usd_per_merged_pr).toBeCloseTo(kept?.sessions[0]?.usd ?? 0, 6);
    expect(before.usd_per_merged_pr).toBeGreaterThan(0);
    expect(after.usd_per_merged_pr).toBe(before.usd_per_merged_pr);
    expect(after.prs.merged).toBe(1);
    // The booking's rewrite ("done") kept the line.
    const comment = first.gh.emulator.comments(issue).find((c) => c.body.includes('issueloop:sessions'));
    expect(comment?.body).toContain('· done');
    expect(parseTrackingRecord(comment?.body ?? '')?.sessions).toHaveLength(1);
  });
});
