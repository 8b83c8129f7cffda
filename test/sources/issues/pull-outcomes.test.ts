import { describe, expect, it } from 'vitest';
import { createMemoryOutcomeStore } from '../../../src/claims/file-outcome-store.js';
import { zeroTouch } from '../../../src/claims/outcome-record.js';
import { createIssueSource } from '../../../src/sources/issues/issue-source.js';
import { currentPulls } from '../../../src/sources/issues/open-pulls.js';
import { keepPullOutcomes } from '../../../src/sources/issues/pull-outcomes.js';
import { roundsFixture } from '../../scheduler/rounds-fixture.js';

const { repo, resolvedWithRealRefs } = roundsFixture();

/**
 * A first run's resolved issue (its draft PR open on an emulator over the real origin), and the sweep's
 * outcome keeping on a fresh outcome store: as on a new runner, its record is imported first.
 */
async function resolved() {
  const fixture = await resolvedWithRealRefs();
  const outcomes = createMemoryOutcomeStore();
  const imported = new Set<number>();
  const keep = async () =>
    keepPullOutcomes(
      {
        github: fixture.gh.adapter,
        outcomes,
        config: fixture.gh.config,
        log: fixture.log,
        redact: fixture.ctx.redact,
        now: () => fixture.clock.now(),
        outcomesImported: imported,
      },
      currentPulls(await fixture.gh.adapter.pullWatch.ownPulls()),
    );
  return { ...fixture, outcomes, keep };
}

/** Pushes a commit by a maintainer (the fixture's git identity, not issueloop's) to the PR's branch. */
function maintainerCommit(branch: string): void {
  const { git, seed } = repo.fx;
  git(seed, 'fetch', '--quiet', 'origin');
  git(seed, 'checkout', '--quiet', '-B', branch, `origin/${branch}`);
  repo.fx.commitFiles(seed, { 'NOTES.md': 'a maintainer was here\n' }, 'maintainer: a note');
  git(seed, 'push', '--quiet', 'origin', `HEAD:${branch}`);
}

describe("the sweep keeps each PR's fate and human touch", () => {
  it('a PR still open: imported on a fresh store with the issue and the PR, untouched', async () => {
    const { keep, outcomes, issue, pr } = await resolved();
    await keep();
    const record = await outcomes.get(issue);
    expect(record?.title).toBe('Fix the greeting typo');
    expect(record?.sessions).toEqual([]);
    expect(record?.pull).toMatchObject({
      number: pr.number,
      state: 'open',
      url: expect.stringContaining('/pull/'),
    });
    expect(record?.first_claimed_at).toBe(record?.pull?.opened_at);
    expect(record?.touch).toEqual({ commits: 0, change_requests: 0, threads: 0 });
  });

  it('a PR merged untouched: merged, when and by whom, zero-touch', async () => {
    const { keep, outcomes, issue, pr, emulator } = await resolved();
    emulator.mergePull(pr.number, 'maintainer');
    await keep();
    const record = await outcomes.get(issue);
    expect(record?.pull).toMatchObject({ state: 'merged', by: 'maintainer', merged_at: expect.any(String) });
    expect(record?.touch.commits).toBe(0);
    expect(record && zeroTouch(record)).toBe(true);
  });

  it("a PR merged after a maintainer's commit on its branch is not zero-touch", async () => {
    const { keep, outcomes, issue, pr, emulator, branch } = await resolved();
    maintainerCommit(branch);
    emulator.mergePull(pr.number, 'maintainer');
    await keep();
    const record = await outcomes.get(issue);
    expect(record?.pull?.state).toBe('merged');
    expect(record?.touch.commits).toBe(1);
    expect(record && zeroTouch(record)).toBe(false);
  });

  it("a PR closed unmerged: closed, when and by whom (GitHub's closed_by of its issue view)", async () => {
    const { keep, outcomes, issue, pr, emulator } = await resolved();
    emulator.addUser('reviewer-rae');
    emulator.closePull(pr.number, 'reviewer-rae');
    await keep();
    const record = await outcomes.get(issue);
    expect(record?.pull).toMatchObject({
      state: 'closed',
      closed_at: expect.any(String),
      by: 'reviewer-rae',
    });
    expect(record && zeroTouch(record)).toBe(false);
  });

  it("counts a reviewer's change request and the thread it opened, read again as it merges; an unchanged PR is not read again", async () => {
    const { keep, outcomes, issue, pr, emulator } = await resolved();
    await keep();
    emulator.addReview(pr.number, {
      author: 'maintainer',
      state: 'CHANGES_REQUESTED',
      body: 'please also test it',
      comments: [{ path: 'greet.js', line: 1, body: 'and here' }],
    });
    // updated_at has whole seconds: a review in the second of the last read is counted at the latest
    // when the PR's head, its updated_at or its state moves next; here, as it merges.
    emulator.mergePull(pr.number, 'maintainer');
    await keep();
    const record = await outcomes.get(issue);
    expect(record?.touch).toEqual({ commits: 0, change_requests: 1, threads: 1 });
    expect(record && zeroTouch(record)).toBe(false);
    const commitReads = () => emulator.requests.filter((r) => r.path.includes('/commits?')).length;
    const before = commitReads();
    expect(before).toBeGreaterThan(0);
    await keep();
    expect(commitReads()).toBe(before);
  });

  it("a changed open PR's review threads are read once a sweep, for its follow-up and its record alike (they were read twice)", async () => {
    const { gh, pr, emulator, clock, log, ctx } = await resolved();
    const source = createIssueSource({
      github: gh.adapter,
      config: gh.config,
      redact: ctx.redact,
      checkout: repo.fx.checkout,
      remote: 'origin',
      baseBranch: 'main',
      log,
      clock,
      outcomes: createMemoryOutcomeStore(),
    });
    emulator.addReview(pr.number, {
      author: 'maintainer',
      state: 'COMMENTED',
      body: '',
      comments: [{ path: 'greet.js', line: 1, body: 'why this name?' }],
    });
    const threadReads = () => emulator.requests.filter((r) => r.operationName === 'PullReviewThreads').length;
    const before = threadReads();
    await source.sweep?.({ round: 1, log, claims: ctx.claims, owner: 'test:1', ledger: ctx.ledger });
    expect(threadReads() - before).toBe(1);
  });
});
