import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PullJson } from '../../src/emulators/github/index.js';
import { call, clockedEmulator, REPO } from './emulator-fixtures.js';

/** Without `origin` a branch's commit is a stand-in: the sha1 of `ref:owner:branch`, as before real refs. */
const fakeSha = (label: string) => createHash('sha1').update(`ref:${label}`).digest('hex');

const getPull = (emulator: Parameters<typeof call>[0], number: number) =>
  call<PullJson>(emulator, 'GET', `${REPO}/pulls/${number}`);

describe('merging and closing without origin', () => {
  it('keeps the stand-in shas; mergePull closes the linked issues of a PR into main', async () => {
    const { emulator, advance } = clockedEmulator();
    const one = emulator.addIssue({ title: 'one', author: 'octocat' });
    const two = emulator.addIssue({ title: 'two', author: 'octocat' });
    const untouched = emulator.addIssue({ title: 'three', author: 'octocat' });
    const created = await call<PullJson>(emulator, 'POST', `${REPO}/pulls`, {
      body: {
        title: 'Both',
        head: 'issueloop/issue-1',
        base: 'main',
        body: `CLOSES #${one}, Resolves octo-org/widgets#${two}; mentions #${untouched}`,
        draft: true,
      },
    });
    expect(created.json.head.sha).toBe(fakeSha('octo-org:issueloop/issue-1'));
    expect(created.json.base.sha).toBe(fakeSha('octo-org:main'));
    expect((await getPull(emulator, created.json.number)).json).toMatchObject({
      mergeable: true,
      mergeable_state: 'draft',
    });
    advance(60_000);
    const sha = emulator.mergePull(created.json.number, 'maintainer');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(emulator.pulls()[0]).toMatchObject({
      state: 'closed',
      merged: true,
      draft: false,
      merge_commit_sha: sha,
      merged_by: { login: 'maintainer' },
      updated_at: '2026-11-21T12:31:00Z',
    });
    expect([one, two, untouched].map((n) => emulator.issue(n)?.state)).toEqual(['closed', 'closed', 'open']);
    expect(() => emulator.mergePull(created.json.number, 'maintainer')).toThrow(/not mergeable/);
  });

  it('closes without merging: the issue stays open, closed_by names who closed the PR, a PR into another branch closes nothing', async () => {
    const { emulator, advance } = clockedEmulator();
    const issue = emulator.addIssue({ title: 'one', author: 'octocat' });
    const body = { title: 'x', head: 'b', base: 'release', body: `Fixes #${issue}` };
    const created = await call<PullJson>(emulator, 'POST', `${REPO}/pulls`, { body });
    advance(60_000);
    emulator.closePull(created.json.number, 'maintainer');
    expect(emulator.pulls()[0]).toMatchObject({
      state: 'closed',
      merged: false,
      merged_at: null,
      updated_at: '2026-11-21T12:31:00Z',
    });
    expect(emulator.issue(issue)?.state).toBe('open');
    // Who closed it: on GET /issues/{n} for the PR's number, as GitHub's closed_by, not in a list.
    const single = await call<{ closed_by: { login: string } | null }>(
      emulator,
      'GET',
      `${REPO}/issues/${created.json.number}`,
    );
    expect(single.json.closed_by?.login).toBe('maintainer');
    const open = await call<{ closed_by: unknown }>(emulator, 'GET', `${REPO}/issues/${issue}`);
    expect(open.json.closed_by).toBeNull();
    const listed = await call<Array<Record<string, unknown>>>(emulator, 'GET', `${REPO}/issues?state=all`);
    expect(listed.json.length).toBeGreaterThan(0);
    expect(listed.json.every((i) => !('closed_by' in i))).toBe(true);
    const other = await call<PullJson>(emulator, 'POST', `${REPO}/pulls`, { body: { ...body, head: 'c' } });
    emulator.mergePull(other.json.number, 'maintainer');
    expect(emulator.issue(issue)?.state).toBe('open');
  });
});
