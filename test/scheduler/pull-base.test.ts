import { describe, expect, it } from 'vitest';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { readLedger } from '../../src/session/ledger.js';
import { RESOLVED_GREETING, roundsFixture } from './rounds-fixture.js';

const { repo, setup, resolvedWithRealRefs, moveMain } = roundsFixture();
type Fixture = Awaited<ReturnType<typeof setup>>;

/** The parents of a commit of origin's. */
const parents = (rev: string) =>
  repo.fx.git(repo.fx.origin, 'rev-list', '--parents', '-n', '1', rev).split(' ').slice(1);

/** A resolved issue whose ready PR the base's protection wants up to date; `before` is its head. */
async function protectedPull() {
  const fixture = await resolvedWithRealRefs({ pr: { draft: false } });
  fixture.emulator.requireUpToDate('main');
  return { ...fixture, before: repo.fx.git(repo.fx.origin, 'rev-parse', fixture.branch) };
}

/** A follow-up run on a new source, counting the model calls and keeping the sessions' first messages. */
async function followUpRun(fixture: Fixture, maxRounds = 2) {
  let modelCalls = 0;
  const firstMessages: string[] = [];
  const models = fixture.gatedModels(async (body) => {
    modelCalls += 1;
    const parsed = JSON.parse(body) as { messages: Array<{ content: unknown }> };
    if (parsed.messages.length === 1) firstMessages.push(JSON.stringify(parsed.messages[0]?.content));
  });
  const summary = await runRounds(
    { ...fixture.ctx, models, source: fixture.newSource() },
    { owner: 'host:2', maxRounds },
  );
  return { summary, modelCalls: () => modelCalls, firstMessages };
}

describe('a pull request whose base moved', () => {
  it('conflicting: the harness merges the base, the agent resolves the conflicted files, the merge commit is pushed (no force)', {
    timeout: 60_000,
  }, async () => {
    const fixture = await resolvedWithRealRefs();
    const { issue, pr, branch } = fixture;
    const before = repo.fx.git(repo.fx.origin, 'rev-parse', branch);
    const mainTip = moveMain(
      { 'greet.js': "export const greet = () => 'helo!';\nexport const wave = () => 'bye';\n" },
      'main: a louder greeting and a wave',
    );
    const { summary, firstMessages } = await followUpRun(fixture);
    expect(summary.reports.map((r) => [r.issue, r.outcome, r.reason])).toEqual([
      [issue, 'resolved', `pushed to PR #${pr.number} (follow-up 1: a conflict with the base)`],
    ]);
    expect(firstMessages[0]).toContain(`The harness merged main (commit ${mainTip.slice(0, 12)})`);
    expect(firstMessages[0]).toContain('the merge stopped on conflicts in these files');
    expect(firstMessages[0]).toContain('- greet.js');
    // A merge commit on top of the old head: nothing rewritten, main's commit in it.
    const head = repo.fx.git(repo.fx.origin, 'rev-parse', branch);
    expect(parents(head)).toEqual([before, mainTip]);
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:greet.js`)).toBe(RESOLVED_GREETING.trimEnd());
    expect(repo.fx.git(repo.fx.origin, 'log', '-1', '--format=%s', branch)).toBe(`Merge main into ${branch}`);
    // GitHub now finds it mergeable: the PR merges, and main has both changes.
    fixture.emulator.mergePull(pr.number, 'maintainer');
    expect(repo.fx.git(repo.fx.origin, 'show', 'main:greet.js')).toBe(RESOLVED_GREETING.trimEnd());
  });

  it('regression: session.setup failing on the conflicted tree does not end the follow-up: the agent resolves the conflict', {
    timeout: 60_000,
  }, async () => {
    // A setup that cannot read a file with markers (as npm ci cannot read such a package.json).
    const fixture = await resolvedWithRealRefs({ session: { setup: "! grep -q '^<<<<<<<' greet.js" } });
    const { issue, pr } = fixture;
    moveMain(
      { 'greet.js': "export const greet = () => 'helo!';\nexport const wave = () => 'bye';\n" },
      'main: louder',
    );
    const { summary } = await followUpRun(fixture, 1);
    expect(summary.reports.map((r) => [r.issue, r.outcome, r.reason])).toEqual([
      [issue, 'resolved', `pushed to PR #${pr.number} (follow-up 1: a conflict with the base)`],
    ]);
  });

  it('regression: conflict markers left in a file end the follow-up unpushed, however the verify command did', {
    timeout: 60_000,
  }, async () => {
    // The scripted agent leaves the markers when the issue says so; `grep 'hello'` passes on them.
    const fixture = await resolvedWithRealRefs({ verify: { retries: 1 } }, 'please; leave the markers');
    const { branch } = fixture;
    const before = repo.fx.git(repo.fx.origin, 'rev-parse', branch);
    moveMain({ 'greet.js': "export const greet = () => 'helo!';\n" }, 'main: a louder greeting');
    const { summary } = await followUpRun(fixture, 1);
    expect(summary.reports.map((r) => [r.outcome, r.reason])).toEqual([
      ['verify_failed', 'Conflict markers are still in greet.js: the merge of main is not resolved.'],
    ]);
    expect(repo.fx.git(repo.fx.origin, 'rev-parse', branch)).toBe(before);
    await fixture.ctx.ledger.flush();
    const { events } = await readLedger(fixture.ctx.ledger.file);
    // The agent was told once, in a fix-up turn, before the attempt ended.
    expect(events.filter((e) => e.type === 'unfinished')).toHaveLength(2);
  });

  it('behind a protected base, merging cleanly: verified and pushed by the harness alone, with no model call', {
    timeout: 60_000,
  }, async () => {
    const fixture = await protectedPull();
    const { emulator, issue, pr, branch, before } = fixture;
    const mainTip = moveMain({ 'README.md': '# widgets\n' }, 'main: a readme');
    expect(() => emulator.mergePull(pr.number, 'maintainer')).toThrow(/out of date/);
    const { summary, modelCalls } = await followUpRun(fixture);
    expect(summary.reports.map((r) => [r.issue, r.outcome, r.reason, r.costUsd])).toEqual([
      [issue, 'resolved', `pushed to PR #${pr.number} (the harness alone: a moved base)`, 0],
    ]);
    // Not one of the pr.max_followups sessions: the PR body's count did not move.
    expect(emulator.pulls()[0]?.body).not.toContain('issueloop:followups');
    expect(modelCalls()).toBe(0);
    expect(parents(repo.fx.git(repo.fx.origin, 'rev-parse', branch))).toEqual([before, mainTip]);
    expect(summary.reports[0]?.verify?.passed).toBe(true);
    emulator.mergePull(pr.number, 'maintainer');
    expect(repo.fx.git(repo.fx.origin, 'show', 'main:README.md')).toBe('# widgets');
  });

  it('merging cleanly but failing the verify command: the agent is started then, told what the merge broke', {
    timeout: 60_000,
  }, async () => {
    moveMain({ STATUS: 'ok\n' }, 'main: status ok');
    const fixture = await resolvedWithRealRefs({
      pr: { draft: false },
      verify: { command: 'grep -q "\'hello\'" greet.js && grep -q ok STATUS' },
    });
    const { emulator, issue, pr, branch } = fixture;
    emulator.requireUpToDate('main');
    moveMain({ STATUS: 'bad\n' }, 'main: status bad');
    const { summary, firstMessages } = await followUpRun(fixture);
    expect(summary.reports.map((r) => [r.issue, r.outcome, r.reason])).toEqual([
      [issue, 'resolved', `pushed to PR #${pr.number} (follow-up 1: a moved base)`],
    ]);
    expect(firstMessages).toHaveLength(1);
    expect(firstMessages[0]).toContain('without a conflict, but the verify command fails');
    expect(firstMessages[0]).toContain('grep -q ok STATUS');
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:STATUS`)).toBe('ok');
    expect(parents(repo.fx.git(repo.fx.origin, 'rev-parse', branch))).toHaveLength(2);
  });

  it("regression: a merge that changes no file (main already has the PR's change) is still committed, not a failed no_changes", {
    timeout: 60_000,
  }, async () => {
    const fixture = await protectedPull();
    const { emulator, issue, pr, branch, before } = fixture;
    // The same fix landed on main by another route (a cherry-pick, a sibling PR).
    const mainTip = moveMain({ 'greet.js': "export const greet = () => 'hello';\n" }, 'main: the same fix');
    const { summary } = await followUpRun(fixture, 1);
    expect(summary.reports.map((r) => [r.issue, r.outcome])).toEqual([[issue, 'resolved']]);
    expect(parents(repo.fx.git(repo.fx.origin, 'rev-parse', branch))).toEqual([before, mainTip]);
    emulator.mergePull(pr.number, 'maintainer');
  });

  it('regression: a branch that changes .gitattributes is not merged by the harness (it could drop a side or run a merge driver)', {
    timeout: 60_000,
  }, async () => {
    const fixture = await resolvedWithRealRefs({ pr: { draft: false } });
    const { emulator, branch } = fixture;
    // Someone with push access to the branch (or the agent, earlier) adds a merge rule.
    const { seed } = repo.fx;
    repo.fx.git(seed, 'fetch', '--quiet', 'origin');
    repo.fx.git(seed, 'checkout', '--quiet', '-B', 'attrs', `origin/${branch}`);
    repo.fx.commitFiles(seed, { '.gitattributes': '* merge=union\n' }, 'union merges');
    repo.fx.git(seed, 'push', '--quiet', 'origin', `HEAD:${branch}`);
    const head = repo.fx.git(repo.fx.origin, 'rev-parse', branch);
    emulator.requireUpToDate('main');
    moveMain({ 'README.md': '# widgets\n' }, 'main: a readme');
    const { summary, modelCalls } = await followUpRun(fixture, 1);
    expect(summary.reports.map((r) => [r.outcome, r.reason])).toEqual([
      [
        'refused',
        'the branch changes .gitattributes, which decides how git merges: the harness does not merge it',
      ],
    ]);
    expect(modelCalls()).toBe(0);
    expect(repo.fx.git(repo.fx.origin, 'rev-parse', branch)).toBe(head);
  });
});
