import { afterEach, describe, expect, it } from 'vitest';
import { createDependencyReader } from '../../src/github/dependencies.js';
import type { BacklogIssue } from '../../src/github/issue-shape.js';
import { createTempStateDirs } from '../claims/temp-state-dirs.js';
import { emulated } from './emulated.js';

const dirs = createTempStateDirs();
afterEach(() => dirs.cleanup());

const member = { author: 'octocat', authorAssociation: 'MEMBER' as const, labels: ['issueloop'] };
const everyLine = { linesTrusted: () => true };
const reads = (e: { emulator: { requests: Array<{ method: string; path: string; status: number }> } }) =>
  e.emulator.requests.map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`);

async function world() {
  const e = await emulated(await dirs.make());
  const list = async () => (await e.adapter.listBacklog()).issues;
  const close = (n: number) =>
    e.client.rest.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: 'octo-org',
      repo: 'widgets',
      issue_number: n,
      state: 'closed',
    });
  const find = (issues: BacklogIssue[], n: number) => {
    const issue = issues.find((i) => i.number === n);
    if (!issue) throw new Error(`#${n} not listed`);
    return issue;
  };
  return { e, list, close, find };
}

describe('dependency reader', () => {
  it('reads GitHub’s blocked_by list only for an issue the listing counts an open blocker for', async () => {
    const { e, list, close, find } = await world();
    const blocked = e.emulator.addIssue({ title: 'blocked', ...member });
    const free = e.emulator.addIssue({ title: 'free', ...member });
    const blocker = e.emulator.addIssue({ title: 'blocker', ...member, labels: [] });
    e.emulator.blockIssue(blocked, blocker);
    const issues = await list();
    expect(find(issues, blocked).openBlockers).toBe(1);
    e.emulator.resetRequests();
    const found = await e.adapter
      .dependencies()
      .openBlockers(issues, { ...everyLine, openInBacklog: new Set(issues.map((i) => i.number)) });
    expect(found).toEqual(new Map([[blocked, [{ ref: `#${blocker}`, state: 'open' }]]]));
    expect(found.has(free)).toBe(false);
    expect(reads(e)).toEqual([`GET /repos/octo-org/widgets/issues/${blocked}/dependencies/blocked_by 200`]);

    await close(blocker);
    const after = await list();
    expect(find(after, blocked).openBlockers).toBe(0);
    e.emulator.resetRequests();
    const none = await e.adapter
      .dependencies()
      .openBlockers(after, { ...everyLine, openInBacklog: new Set() });
    expect(none.size).toBe(0);
    expect(reads(e)).toEqual([]);
  });

  it('body lines: a blocker in the backlog costs nothing, another is read once per round, conditionally', async () => {
    const { e, list, close, find } = await world();
    const outside = e.emulator.addIssue({ title: 'not labelled', ...member, labels: [] });
    const listed = e.emulator.addIssue({ title: 'labelled', ...member });
    const a = e.emulator.addIssue({ title: 'a', ...member, body: `Blocked by #${listed}, #${outside}` });
    const b = e.emulator.addIssue({ title: 'b', ...member, body: `Depends on #${outside}` });
    let issues = await list();
    const options = { ...everyLine, openInBacklog: new Set(issues.map((i) => i.number)) };
    e.emulator.resetRequests();
    const found = await e.adapter.dependencies().openBlockers([find(issues, a), find(issues, b)], options);
    expect(found.get(a)).toEqual([
      { ref: `#${listed}`, state: 'open' },
      { ref: `#${outside}`, state: 'open' },
    ]);
    expect(found.get(b)).toEqual([{ ref: `#${outside}`, state: 'open' }]);
    expect(reads(e)).toEqual([`GET /repos/octo-org/widgets/issues/${outside} 200`]);

    // The next round: unchanged, so a 304 that costs no rate limit; closed, and b is free.
    e.emulator.resetRequests();
    await e.adapter.dependencies().openBlockers([find(issues, b)], options);
    expect(reads(e)).toEqual([`GET /repos/octo-org/widgets/issues/${outside} 304`]);
    await close(outside);
    issues = await list();
    const freed = await e.adapter.dependencies().openBlockers([find(issues, b)], options);
    expect(freed.size).toBe(0);
  });

  it('a blocker in a repository the token cannot read counts as open, and says so', async () => {
    const { e, list, find } = await world();
    const n = e.emulator.addIssue({ title: 'cross', ...member, body: 'Blocked by other-org/api#4' });
    const issues = await list();
    const reader = createDependencyReader(e.client, e.adapter.cache);
    const found = await reader.openBlockers([find(issues, n)], { ...everyLine, openInBacklog: new Set() });
    expect(found.get(n)).toEqual([{ ref: 'other-org/api#4', state: 'unreadable' }]);
    expect(reads(e)).toContain('GET /repos/other-org/api/issues/4 404');
  });

  it('an untrusted body’s lines are not read at all', async () => {
    const { e, list, find } = await world();
    const blocker = e.emulator.addIssue({ title: 'blocker', ...member });
    const n = e.emulator.addIssue({ title: 'x', ...member, body: `Blocked by #${blocker}` });
    const issues = await list();
    const reader = e.adapter.dependencies();
    const openInBacklog = new Set(issues.map((i) => i.number));
    expect(
      (await reader.openBlockers([find(issues, n)], { linesTrusted: () => true, openInBacklog })).get(n),
    ).toEqual([{ ref: `#${blocker}`, state: 'open' }]);
    expect(
      (await reader.openBlockers([find(issues, n)], { linesTrusted: () => false, openInBacklog })).size,
    ).toBe(0);
  });
});
