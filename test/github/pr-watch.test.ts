import { describe, expect, it } from 'vitest';
import { createMemoryEtagCache } from '../../src/github/etag-cache.js';
import { createPullWatch } from '../../src/github/pr-watch.js';
import { scriptedGitHub } from '../helpers/scripted-github.js';

/**
 * Which pull requests issueloop takes for its own, from GitHub's raw answers: a PR is issueloop's
 * only on an `issueloop/issue-<n>` branch of the repository itself. A fork can name a branch the
 * same, and the follow-up that PR would start runs an agent on text and commits its author chose.
 */

const REPO = '/repos/octo-org/widgets';
const OPEN = `${REPO}/pulls?state=open&per_page=100`;
const CLOSED = `${REPO}/pulls?state=closed&sort=updated&direction=desc&per_page=100`;

type Head = { ref?: string; label?: string; repo?: { full_name?: string } | null };

/** A raw PR as GitHub lists it: issueloop's own unless `head` says otherwise. */
function rawPull(number: number, head: Head = {}, more: Record<string, unknown> = {}) {
  const ref = head.ref ?? `issueloop/issue-${number + 100}`;
  return {
    number,
    html_url: `https://github.test/octo-org/widgets/pull/${number}`,
    node_id: `PR_${number}`,
    state: 'open',
    draft: false,
    updated_at: '2026-11-21T12:00:00Z',
    head: {
      ref,
      sha: `${number}`.padStart(40, 'a'),
      ...('label' in head ? { label: head.label } : { label: `octo-org:${ref}` }),
      ...('repo' in head ? { repo: head.repo } : { repo: { full_name: 'octo-org/widgets' } }),
    },
    base: { ref: 'main', repo: { full_name: 'octo-org/widgets' } },
    ...more,
  };
}

async function ownNumbers(open: unknown[], closed: unknown[] = []) {
  const gh = scriptedGitHub();
  gh.answer(OPEN, { body: open });
  gh.answer(CLOSED, { body: closed });
  const pulls = await createPullWatch(gh.client, createMemoryEtagCache()).ownPulls();
  return pulls.map((pull) => pull.number);
}

describe('createPullWatch: a fork is never issueloop', () => {
  it("a fork's issueloop/issue-N branch is not taken for issueloop's own PR", async () => {
    const fork = rawPull(2, { label: 'mallory:issueloop/issue-7', repo: { full_name: 'mallory/widgets' } });
    expect(await ownNumbers([rawPull(1), fork])).toEqual([1]);
  });

  it('a fork in the same owner (another repository) is not taken: the head repository is checked, not only the label', async () => {
    const sibling = rawPull(2, { repo: { full_name: 'octo-org/widgets-fork' } });
    expect(sibling.head.label).toBe('octo-org:issueloop/issue-102');
    expect(await ownNumbers([rawPull(1), sibling])).toEqual([1]);
  });

  it("a deleted fork's PR (head repository null) is not taken: the head label's owner is checked", async () => {
    const orphan = rawPull(2, { label: 'mallory:issueloop/issue-7', repo: null });
    expect(await ownNumbers([rawPull(1), orphan])).toEqual([1]);
  });

  it('a head label of an owner whose name only starts with ours is not ours (the colon is part of the check)', async () => {
    const lookalike = rawPull(2, { label: 'octo-org-evil:issueloop/issue-7', repo: null });
    expect(await ownNumbers([rawPull(1), lookalike])).toEqual([1]);
  });

  it('owner and repository match whatever their case, as GitHub names them', async () => {
    const shouty = rawPull(2, {
      label: 'OCTO-ORG:issueloop/issue-7',
      repo: { full_name: 'Octo-Org/Widgets' },
    });
    expect(await ownNumbers([rawPull(1), shouty])).toEqual([1, 2]);
  });

  it('a PR missing the label, or the head repository, is judged on the one it has', async () => {
    const noLabel = rawPull(2, { label: undefined });
    delete (noLabel.head as { label?: string }).label;
    const noRepo = rawPull(3, { repo: undefined });
    delete (noRepo.head as { repo?: unknown }).repo;
    const forkNoLabel = rawPull(4, { repo: { full_name: 'mallory/widgets' } });
    delete (forkNoLabel.head as { label?: string }).label;
    expect(await ownNumbers([noLabel, noRepo, forkNoLabel])).toEqual([2, 3]);
  });

  it('only a whole issueloop/issue-<digits> branch name is ours', async () => {
    const names = [
      'issueloop/issue-12-evil',
      'x/issueloop/issue-12',
      'issueloop/issue-',
      'issueloop/issue-1a',
    ];
    const others = names.map((ref, i) => rawPull(10 + i, { ref }));
    expect(await ownNumbers([rawPull(1, { ref: 'issueloop/issue-1234' }), ...others])).toEqual([1]);
  });
});

describe('createPullWatch: own pulls as issueloop reads them', () => {
  it('an own PR keeps its issue number and fields; merged and draft are read from either field', async () => {
    const gh = scriptedGitHub();
    const open = rawPull(5, { ref: 'issueloop/issue-1234' }, { draft: true });
    const merged = rawPull(6, {}, { state: 'closed', merged_at: '2026-11-20T00:00:00Z' });
    const closed = rawPull(7, {}, { state: 'closed', merged_at: null });
    gh.answer(OPEN, { body: [open] });
    gh.answer(CLOSED, { body: [merged, closed] });
    const pulls = await createPullWatch(gh.client, createMemoryEtagCache()).ownPulls();
    expect(pulls[0]).toEqual({
      number: 5,
      issue: 1234,
      url: 'https://github.test/octo-org/widgets/pull/5',
      nodeId: 'PR_5',
      state: 'open',
      merged: false,
      draft: true,
      headRef: 'issueloop/issue-1234',
      headSha: open.head.sha,
      baseRef: 'main',
      updatedAt: '2026-11-21T12:00:00Z',
    });
    expect(pulls.slice(1).map((p) => [p.number, p.state, p.merged, p.draft])).toEqual([
      [6, 'closed', true, false],
      [7, 'closed', false, false],
    ]);
  });

  it('a PR whose state is anything but open is closed; merged: true alone is merged', async () => {
    const odd = rawPull(8, {}, { state: 'locked', merged: true });
    const gh = scriptedGitHub();
    gh.answer(OPEN, { body: [] });
    gh.answer(CLOSED, { body: [odd] });
    const [pull] = await createPullWatch(gh.client, createMemoryEtagCache()).ownPulls();
    expect(pull).toMatchObject({ number: 8, state: 'closed', merged: true });
  });

  it('every page of open PRs is read, and one page (the newest) of closed ones', async () => {
    const gh = scriptedGitHub();
    const page2 = `${REPO}/pulls?state=open&per_page=100&page=2`;
    gh.answer(OPEN, { body: [rawPull(1)], next: page2 });
    gh.answer(page2, { body: [rawPull(2)] });
    gh.answer(CLOSED, { body: [rawPull(3, {}, { state: 'closed' })], next: `${CLOSED}&page=2` });
    const pulls = await createPullWatch(gh.client, createMemoryEtagCache()).ownPulls();
    expect(pulls.map((p) => p.number)).toEqual([1, 2, 3]);
    expect(gh.requests).toEqual([OPEN, page2, CLOSED]);
  });

  it('a round in which nothing changed is answered from the ETag cache (304s) with the same PRs', async () => {
    const gh = scriptedGitHub();
    gh.answer(OPEN, { body: [rawPull(1)], etag: '"o1"' });
    gh.answer(CLOSED, { body: [rawPull(2, {}, { state: 'closed' })], etag: '"c1"' });
    const watch = createPullWatch(gh.client, createMemoryEtagCache());
    const first = await watch.ownPulls();
    const again = await watch.ownPulls();
    expect(first.map((p) => p.number)).toEqual([1, 2]);
    expect(again).toEqual(first);
    expect(gh.statuses).toEqual([200, 200, 304, 304]);
  });
});
