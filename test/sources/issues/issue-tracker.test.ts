import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/core/redact.js';
import { createGitHubEmulator } from '../../../src/emulators/github/index.js';
import type { BacklogIssue } from '../../../src/github/issue-shape.js';
import type { SessionReport } from '../../../src/session/session-report.js';
import { createIssueSource } from '../../../src/sources/issues/issue-source.js';
import { BASE, emulated } from '../../github/emulated.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { eventLoopTurns, until } from '../../helpers/until.js';
import { memberIssue, useStateDir } from '../../helpers/world.js';

const state = useStateDir('issueloop-tracker-');

/**
 * One issue's tracker on the GitHub emulator, on a clock that only moves when told. The first write
 * of a `held` method waits until `release()`.
 */
async function tracked(held?: string) {
  const emulator = createGitHubEmulator({ baseUrl: BASE });
  const serve = emulator.fetch;
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = true;
  let heldArrived = false;
  emulator.fetch = async (input, init) => {
    if (holding && init?.method === held) {
      holding = false;
      heldArrived = true;
      await gate;
    }
    return serve(input, init);
  };
  const gh = await emulated(state.path, { emulator });
  const number = gh.emulator.addIssue(memberIssue('Fix it'));
  const clock = new FakeClock(Date.UTC(2026, 10, 25), false);
  const source = createIssueSource({
    github: gh.adapter,
    config: gh.config,
    redact: createRedactor([]),
    checkout: state.path,
    remote: 'origin',
    baseBranch: 'main',
    log: createMemoryLog(),
    clock,
  });
  const issue = (await gh.adapter.issues.get(number)) as BacklogIssue;
  const tracker = source.track(issue, {
    attempt: 1,
    before: undefined,
    readable: () => true,
    log: createMemoryLog(),
    ledger: { append: async () => undefined } as never,
  });
  const edits = () =>
    gh.emulator.requests.filter((r) => r.method === 'PATCH' && r.path.includes('/comments/'));
  const report = { issue: number, outcome: 'no_changes', reason: 'nothing', costUsd: 0 } as SessionReport;
  const track = (attempt: number) =>
    source.track(issue, {
      attempt,
      before: undefined,
      readable: () => true,
      log: createMemoryLog(),
      ledger: { append: async () => undefined } as never,
    });
  return { gh, clock, source, tracker, track, edits, report, release, held: () => heldArrived };
}

describe('the tracking comment of an issue', () => {
  it('regression: a verify that ends within a second is one edit with the outcome, not two paced writes', async () => {
    const { clock, source, tracker, edits, report } = await tracked();
    await tracker.claimed();
    tracker.phase('verifying');
    // The verifying edit waits for its second on the injected clock, which does not move here.
    await until(() => clock.pendingCount === 1);
    await eventLoopTurns();
    expect(edits()).toHaveLength(0);
    await tracker.finished(report, undefined);
    await source.settle();
    expect(edits()).toHaveLength(1);
    expect(JSON.stringify(edits()[0]?.body)).not.toContain('verifying');
  });

  it('a verify that runs longer shows on the comment once the second has passed', async () => {
    const { clock, source, tracker, edits, report } = await tracked();
    await tracker.claimed();
    tracker.phase('verifying');
    clock.advance(1_000);
    // Polled, not a fixed wait: on a loaded machine the paced edit takes more than one short tick.
    await until(() => edits().length === 1);
    expect(edits()).toHaveLength(1);
    await tracker.finished(report, undefined);
    await source.settle();
    expect(edits()).toHaveLength(2);
  });
});

describe('the writes that follow an outcome', () => {
  it('do not hold the worker: finished returns before them, and settle waits for them', async () => {
    const { source, tracker, edits, report, release, held } = await tracked('PATCH');
    await tracker.claimed();
    await tracker.finished(report, undefined);
    let settled = false;
    const settling = source.settle().then(() => {
      settled = true;
    });
    // The outcome's edit is on its way (held at the emulator's door): settle waits for it.
    await until(held);
    await eventLoopTurns();
    expect(settled).toBe(false);
    expect(edits()).toHaveLength(0);
    release();
    await settling;
    expect(edits()).toHaveLength(1);
    expect(JSON.stringify(edits()[0]?.body)).toContain('nothing');
  });

  it("land before the issue's next claim writes: the comment ends on the later attempt", async () => {
    const { gh, source, track, report, release, held } = await tracked('PATCH');
    const first = track(1);
    await first.claimed();
    await first.finished(report, undefined);
    // The issue is claimed again while the first outcome's edit is held back.
    await until(held);
    const second = track(2);
    let secondClaimed = false;
    const claimed = second.claimed().then(() => {
      secondClaimed = true;
    });
    await eventLoopTurns();
    expect(secondClaimed).toBe(false);
    release();
    await claimed;
    await source.settle();
    const comments = gh.emulator.requests.filter((r) => r.path.includes('/comments'));
    const bodies = comments
      .filter((r) => r.method !== 'GET')
      .map((r) => String((r.body as { body?: string } | undefined)?.body));
    expect(comments.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(bodies).toHaveLength(3);
    expect(bodies[1]).toContain('nothing');
    expect(bodies[2]).toContain('| Attempt | 2 |');
  });
});
