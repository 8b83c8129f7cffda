import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/core/redact.js';
import type { BacklogIssue } from '../../../src/github/issue-shape.js';
import type { SessionReport } from '../../../src/session/session-report.js';
import { createIssueSource } from '../../../src/sources/issues/issue-source.js';
import { emulated } from '../../github/emulated.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';

let stateDir = '';
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'issueloop-tracker-'));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

/** One issue's tracker on the GitHub emulator, on a clock that only moves when told. */
async function tracked() {
  const gh = await emulated(stateDir);
  const number = gh.emulator.addIssue({
    title: 'Fix it',
    body: 'please',
    author: 'octocat',
    authorAssociation: 'MEMBER',
    labels: ['issueloop'],
  });
  const clock = new FakeClock(Date.UTC(2026, 10, 25), false);
  const source = createIssueSource({
    github: gh.adapter,
    config: gh.config,
    redact: createRedactor([]),
    checkout: stateDir,
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
  return { gh, clock, tracker, edits, report };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the tracking comment of an issue', () => {
  it('regression: a verify that ends within a second is one edit with the outcome, not two paced writes', async () => {
    const { tracker, edits, report } = await tracked();
    await tracker.claimed();
    tracker.phase('verifying');
    await tick();
    expect(edits()).toHaveLength(0);
    await tracker.finished(report, undefined);
    await tick();
    expect(edits()).toHaveLength(1);
    expect(JSON.stringify(edits()[0]?.body)).not.toContain('verifying');
  });

  it('a verify that runs longer shows on the comment once the second has passed', async () => {
    const { clock, tracker, edits, report } = await tracked();
    await tracker.claimed();
    tracker.phase('verifying');
    clock.advance(1_000);
    await tick();
    expect(edits()).toHaveLength(1);
    await tracker.finished(report, undefined);
    expect(edits()).toHaveLength(2);
  });
});
