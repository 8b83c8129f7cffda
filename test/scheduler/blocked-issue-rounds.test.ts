import { describe, expect, it } from 'vitest';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { member, roundsFixture } from './rounds-fixture.js';

const { setup } = roundsFixture();

describe('issue dependencies across runs', () => {
  it('a blocked issue is skipped with its blocker named in the summary, and claimed once the blocker closes', async () => {
    const { gh, ctx, newSource } = await setup();
    const blocker = gh.emulator.addIssue(member('Write the style guide', { labels: [] }));
    const blocked = gh.emulator.addIssue(
      member('Fix the greeting typo', { body: `The greeting says helo.\n\nBlocked by #${blocker}` }),
    );

    const first = await runRounds(ctx, { owner: 'host:1' });
    expect(first.stop).toBe('empty_backlog');
    expect(first.reports).toEqual([]);
    expect(first.skipped).toEqual([
      { issue: blocked, title: 'Fix the greeting typo', why: `blocked by #${blocker} (open)` },
    ]);

    await gh.client.rest.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: 'octo-org',
      repo: 'widgets',
      issue_number: blocker,
      state: 'closed',
    });
    const second = await runRounds({ ...ctx, source: newSource() }, { owner: 'host:1' });
    expect(second.reports.map((r) => [r.issue, r.outcome])).toEqual([[blocked, 'resolved']]);
    expect(second.skipped.map((s) => s.why)).not.toContain(`blocked by #${blocker} (open)`);
  });
});
