import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/core/redact.js';
import { NEEDS_HUMAN_LABEL } from '../../../src/github/labels.js';
import { issueWrites } from '../../../src/sources/issues/issue-tracker.js';
import { MERGED, PR_CLOSED, sweepPulls } from '../../../src/sources/issues/pull-sweep.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { until } from '../../helpers/until.js';
import { boardEmulator, resolvedPullWorld, useStateDir } from '../../helpers/world.js';

const stateDir = useStateDir('issueloop-sweep-');

/**
 * An issue issueloop resolved: its claim says `resolved`, its draft PR is open on
 * `issueloop/issue-<n>`, and it sits in the board's In Review column.
 */
async function resolvedIssue(config: Record<string, unknown> = {}) {
  const board = boardEmulator();
  const { emulator } = board;
  const { gh, issue, pr, claims, clock, ledger } = await resolvedPullWorld(stateDir.path, {
    emulator,
    config: { ...board.config, ...config },
    clock: new FakeClock(Date.UTC(2026, 10, 25), false),
  });
  const nodeId = (await gh.adapter.issues.get(issue)).nodeId;
  await gh.adapter.board?.setStatus({ number: issue, nodeId }, 'review');
  const sweep = (extra: Partial<Parameters<typeof sweepPulls>[0]> = {}) =>
    sweepPulls({
      github: gh.adapter,
      claims,
      config: gh.config,
      ledger: { append: async (type, fields) => void ledger.push([type, fields ?? {}]) },
      log: createMemoryLog(),
      redact: createRedactor([]),
      owner: 'host:2',
      now: () => clock.now(),
      ...extra,
    });
  const status = () => board.statusOf(issue);
  const tracking = () => emulator.comments(issue).find((c) => c.body.includes('issueloop:tracking'))?.body;
  return { emulator, gh, issue, pr, claims, sweep, status, tracking, ledger };
}

describe("the sweep of issueloop's pull requests", () => {
  it('a merged PR: Done on the board, labels off, the claim closed as merged, the comment final', async () => {
    const { emulator, issue, pr, claims, sweep, status, tracking, ledger } = await resolvedIssue();
    expect(status()).toBe('In Review');
    emulator.mergePull(pr.number, 'maintainer');
    const result = await sweep();
    expect(result).toMatchObject({ merged: [issue], closed: [] });
    expect(status()).toBe('Done');
    expect(emulator.labelsOf(issue)).not.toContain('issueloop');
    expect((await claims.get(issue))?.last_outcome).toBe(MERGED);
    expect(tracking()).toContain('**issueloop** · done');
    expect(tracking()).toContain(pr.url);
    expect(ledger).toContainEqual(['pull_request', { issue, pr: pr.url, state: 'merged' }]);
    // Booked once: the next sweep finds nothing to do.
    expect(await sweep()).toMatchObject({ merged: [], closed: [] });
  });

  it("regression: a booking waits for the issue's writes still under way (Done is not overwritten by an older In review)", async () => {
    const { emulator, issue, pr, sweep, status } = await resolvedIssue();
    const writes = issueWrites();
    let release = () => {};
    // A session's outcome write of the same issue, still pending when the sweep books the merge.
    const earlier = writes.inOrder(issue, () => new Promise<void>((resolve) => (release = resolve)));
    emulator.mergePull(pr.number, 'maintainer');
    let queued: number[] = [];
    const swept = sweep({
      inOrder: (number, write) => {
        queued = [...queued, number];
        return writes.inOrder(number, write);
      },
    });
    // The booking has reached the issue's queue, behind the pending write: nothing booked yet.
    await until(() => queued.length > 0);
    expect(queued).toEqual([issue]);
    expect(status()).toBe('In Review');
    release();
    await earlier;
    expect(await swept).toMatchObject({ merged: [issue] });
    expect(status()).toBe('Done');
  });

  it('regression: a booking checks the record again under its claim: an issue worked since the list is left for the next sweep', async () => {
    const { emulator, issue, pr, claims, sweep, status } = await resolvedIssue();
    const listed = await claims.list();
    // A follow-up session of the issue ends after the sweep listed the claims.
    const worked = await claims.claim(issue, 'host:1', 60_000);
    if (!worked.ok) throw new Error('setup: claim refused');
    await claims.release(worked.lease, { outcome: 'verify_failed' });
    emulator.mergePull(pr.number, 'maintainer');
    const stale = { ...claims, list: async () => listed };
    expect(await sweep({ claims: stale })).toMatchObject({ merged: [] });
    expect((await claims.get(issue))?.last_outcome).toBe('verify_failed');
    expect(status()).toBe('In Review');
  });

  it('a PR closed without merging sends its issue back to the queue (pr.on_closed: queue)', async () => {
    const { emulator, issue, pr, claims, sweep, status, tracking } = await resolvedIssue();
    emulator.closePull(pr.number, 'maintainer');
    expect(await sweep()).toMatchObject({ merged: [], closed: [issue] });
    expect(status()).toBe('Todo');
    expect((await claims.get(issue))?.last_outcome).toBe(PR_CLOSED);
    expect(tracking()).toContain(`pull request #${pr.number} was closed without merging`);
    expect(emulator.labelsOf(issue)).toContain('issueloop');
  });

  it('a PR closed without merging goes to a human with pr.on_closed: needs_human', async () => {
    const { emulator, issue, pr, sweep, status, tracking } = await resolvedIssue({
      pr: { on_closed: 'needs_human' },
    });
    emulator.closePull(pr.number, 'maintainer');
    await sweep();
    expect(status()).toBe('Needs human');
    expect(emulator.labelsOf(issue)).toContain(NEEDS_HUMAN_LABEL);
    expect(tracking()).toContain('blocked, needs a human');
  });

  it('an open PR, or one whose issue is not awaiting review, is left alone', async () => {
    const { emulator, issue, pr, claims, sweep, status } = await resolvedIssue();
    expect(await sweep()).toMatchObject({ merged: [], closed: [] });
    // Held by another runner: not booked now, but later.
    emulator.mergePull(pr.number, 'maintainer');
    const held = await claims.claim(issue, 'host:3', 60_000);
    expect(await sweep()).toMatchObject({ merged: [], closed: [] });
    expect(status()).toBe('In Review');
    if (held.ok) await claims.release(held.lease, { outcome: 'resolved' });
    expect(await sweep()).toMatchObject({ merged: [issue], closed: [] });
  });

  it('an open PR is read for what it needs: checks running, then failed (each named with its summary)', async () => {
    const { emulator, issue, sweep } = await resolvedIssue();
    const branch = `issueloop/issue-${issue}`;
    const run = emulator.addCheckRun({ ref: branch, name: 'test', status: 'in_progress' });
    emulator.addStatus(branch, { context: 'ci/legacy', state: 'success' });
    const running = (await sweep()).open;
    expect(running.map((o) => [o.pull.issue, o.decision])).toEqual([
      [issue, { kind: 'wait', why: 'checks running: test' }],
    ]);
    emulator.updateCheckRun(run.id, {
      conclusion: 'failure',
      output: { title: '2 tests failed', summary: 'greet.test.js' },
    });
    const [failed] = (await sweep()).open;
    expect(failed?.decision.kind).toBe('ci_failed');
    expect(failed?.checks.failed).toMatchObject([
      { kind: 'check_run', id: run.id, name: 'test', summary: '2 tests failed: greet.test.js' },
    ]);
  });

  it('a round in which no pull request changed costs no charged request', async () => {
    const { emulator, pr, sweep } = await resolvedIssue();
    await sweep();
    emulator.resetRequests();
    await sweep();
    expect(emulator.requests.length).toBeGreaterThan(0);
    expect(emulator.chargedCount()).toBe(0);
    emulator.closePull(pr.number, 'maintainer');
    emulator.resetRequests();
    await sweep();
    expect(emulator.chargedCount()).toBeGreaterThan(0);
  });
});
