import { describe, expect, it } from 'vitest';
import { createGitHubEmulator } from '../../src/sandbox/github/index.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { readLedger } from '../../src/session/ledger.js';
import { BASE } from '../github/emulated.js';
import { member, roundsFixture } from './rounds-fixture.js';

const { repo, setup } = roundsFixture();

/** A run that resolves one issue: its draft PR is open, its board item In Review. */
async function resolvedByARun() {
  const fixture = await setup({ empty_rounds: 1 });
  const { gh, ctx } = fixture;
  const project = gh.emulator.project(1);
  const issue = gh.emulator.addIssue(member('Fix the greeting typo'));
  const first = await runRounds(ctx, { owner: 'host:1' });
  expect(first.reports.map((r) => r.outcome)).toEqual(['resolved']);
  const pr = gh.emulator.pulls().find((p) => p.head.ref === `issueloop/issue-${issue}`);
  if (!pr) throw new Error('setup: no pull request');
  return { ...fixture, issue, pr, project };
}

describe('after the pull request', () => {
  it("a merged PR: the next run's first round books it (claim merged, Done, labels off) and works nothing", {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx, claims, newSource, issue, pr } = await resolvedByARun();
    gh.emulator.mergePull(pr.number, 'maintainer');
    const second = await runRounds({ ...ctx, source: newSource() }, { owner: 'host:2' });
    expect(second.reports).toEqual([]);
    expect((await claims.get(issue))?.last_outcome).toBe('merged');
    expect(gh.emulator.issue(issue)?.state).toBe('closed');
    expect(gh.emulator.labelsOf(issue)).not.toContain('issueloop');
    const comment = gh.emulator.comments(issue).find((c) => c.body.includes('issueloop:tracking'));
    expect(comment?.body).toContain('**issueloop** · done');
    await ctx.ledger.flush();
    const { events } = await readLedger(ctx.ledger.file);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'pull_request', issue, state: 'merged', pr: pr.html_url }),
    );
  });

  it('regression: a PR closed without merging gets the issue worked again once, with a new pull request (the old closed PR is not booked again)', {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx, claims, newSource, issue, pr } = await resolvedByARun();
    gh.emulator.closePull(pr.number, 'maintainer');
    const second = await runRounds({ ...ctx, source: newSource() }, { owner: 'host:2', maxRounds: 2 });
    expect(second.reports.map((r) => [r.issue, r.outcome, r.reason])).toEqual([
      [issue, 'resolved', `draft PR #${pr.number + 1}`],
    ]);
    expect((await claims.get(issue))?.last_outcome).toBe('resolved');
    const open = gh.emulator.pulls().filter((p) => p.state === 'open');
    expect(open.map((p) => p.head.ref)).toEqual([`issueloop/issue-${issue}`]);
    expect(open[0]?.number).not.toBe(pr.number);
  });

  it("an open PR's checks are followed in the ledger: each change once", { timeout: 30_000 }, async () => {
    const { gh, ctx, newSource, issue } = await resolvedByARun();
    const run = gh.emulator.addCheckRun({
      ref: `issueloop/issue-${issue}`,
      name: 'test',
      status: 'in_progress',
    });
    const source = newSource();
    await runRounds({ ...ctx, source }, { owner: 'host:2', maxRounds: 2 });
    gh.emulator.updateCheckRun(run.id, {
      conclusion: 'failure',
      output: { title: '1 test failed', summary: '' },
    });
    await runRounds({ ...ctx, source }, { owner: 'host:2', maxRounds: 1 });
    await ctx.ledger.flush();
    const { events } = await readLedger(ctx.ledger.file);
    const states = events.filter((e) => e.type === 'pull_request').map((e) => e.detail);
    // The first run saw the PR without checks; then the check started, then it failed.
    expect(states).toEqual(['no checks; mergeable', 'checks running: test', 'checks failed (test)']);
  });
});

describe('a pull request whose checks failed', () => {
  /** A resolved issue on an emulator that reads the real branches of the fixture's origin. */
  async function resolvedWithRealRefs(config: Record<string, unknown> = {}) {
    const emulator = createGitHubEmulator({ baseUrl: BASE, origin: repo.fx.origin });
    const fixture = await setup({ empty_rounds: 1, ...config }, emulator);
    const issue = emulator.addIssue(member('Fix the greeting typo'));
    await runRounds(fixture.ctx, { owner: 'host:1' });
    const pr = emulator.pulls().find((p) => p.head.ref === `issueloop/issue-${issue}`);
    if (!pr) throw new Error('setup: no pull request');
    const branch = `issueloop/issue-${issue}`;
    const failCheck = () =>
      emulator.addCheckRun({
        ref: branch,
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        output: { title: '1 test failed', summary: 'no test covers greet()' },
        annotations: [
          {
            path: 'greet.js',
            start_line: 1,
            end_line: 1,
            annotation_level: 'failure',
            message: 'greet() is untested',
          },
        ],
        log: '2026-11-25T10:00:00.0000000Z > npm test\n2026-11-25T10:00:01.0000000Z Error: no test file for greet.js\n',
      });
    return { ...fixture, emulator, issue, pr, branch, failCheck };
  }

  it('gets a follow-up session on the same branch and PR, told what failed; its push ends the follow-up', {
    timeout: 60_000,
  }, async () => {
    const { emulator, ctx, newSource, gatedModels, issue, pr, branch, failCheck } =
      await resolvedWithRealRefs();
    const before = repo.fx.git(repo.fx.origin, 'rev-parse', branch);
    failCheck();
    const firstMessages: string[] = [];
    const models = gatedModels(async (body) => {
      const parsed = JSON.parse(body) as { messages: Array<{ content: unknown }> };
      if (parsed.messages.length === 1) firstMessages.push(JSON.stringify(parsed.messages[0]?.content));
    });
    const second = await runRounds(
      { ...ctx, models, source: newSource() },
      { owner: 'host:2', maxRounds: 3 },
    );
    expect(second.reports.map((r) => [r.issue, r.outcome, r.reason])).toEqual([
      [issue, 'resolved', `pushed to PR #${pr.number} (follow-up 1: failing checks)`],
    ]);
    const message = firstMessages[0] ?? '';
    expect(message).toContain(`Issue #${issue}: Fix the greeting typo`);
    expect(message).toContain('FAILING CHECK: test (failure)');
    expect(message).toContain('greet.js:1 (failure): greet() is untested');
    expect(message).toContain('Error: no test file for greet.js');
    expect(message).not.toContain('2026-11-25T10:00:01');
    // The same PR, one commit further on the same branch; its body counts the follow-up.
    expect(
      emulator
        .pulls()
        .filter((p) => p.state === 'open')
        .map((p) => p.number),
    ).toEqual([pr.number]);
    expect(repo.fx.git(repo.fx.origin, 'rev-parse', `${branch}~1`)).toBe(before);
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:greet.test.js`)).toContain("greet() === 'hello'");
    expect(emulator.pulls()[0]?.body).toContain('<!-- issueloop:followups 1 -->');
  });

  it('after pr.max_followups, checks that still fail send the issue to a human, with no session', {
    timeout: 60_000,
  }, async () => {
    const { emulator, ctx, claims, newSource, issue, failCheck } = await resolvedWithRealRefs({
      pr: { max_followups: 1 },
    });
    failCheck();
    await runRounds({ ...ctx, source: newSource() }, { owner: 'host:2', maxRounds: 2 });
    failCheck(); // on the follow-up's new head commit
    const third = await runRounds({ ...ctx, source: newSource() }, { owner: 'host:3', maxRounds: 2 });
    expect(third.reports).toEqual([]);
    expect((await claims.get(issue))?.last_outcome).toBe('followups_exhausted');
    expect(emulator.labelsOf(issue)).toContain('issueloop:needs-human');
    const comment = emulator.comments(issue).find((c) => c.body.includes('issueloop:tracking'));
    expect(comment?.body).toContain('still fail after 1 follow-up session');
  });
});
