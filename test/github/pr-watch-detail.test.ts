import { describe, expect, it } from 'vitest';
import { createMemoryEtagCache } from '../../src/github/etag-cache.js';
import { createPullWatch } from '../../src/github/pr-watch.js';
import { scriptedGitHub } from '../helpers/scripted-github.js';

/** One PR's detail, the base branch's required checks, and what a failed read says. */

const REPO = '/repos/octo-org/widgets';
const SHA = 'c0ffee'.padEnd(40, '0');

function rawDetail(head: Record<string, unknown> = {}, more: Record<string, unknown> = {}) {
  return {
    number: 9,
    html_url: 'https://github.test/octo-org/widgets/pull/9',
    node_id: 'PR_9',
    state: 'open',
    draft: false,
    updated_at: '2026-11-21T12:00:00Z',
    head: {
      ref: 'issueloop/issue-4',
      sha: SHA,
      label: 'octo-org:issueloop/issue-4',
      repo: { full_name: 'octo-org/widgets' },
      ...head,
    },
    base: { ref: 'main' },
    ...more,
  };
}

async function detailOf(raw: unknown) {
  const gh = scriptedGitHub();
  gh.answer(`${REPO}/pulls/9`, { body: raw });
  return createPullWatch(gh.client, createMemoryEtagCache()).detail(9);
}

describe('createPullWatch.detail', () => {
  it('reads mergeability, review comments and the follow-up marker of the body', async () => {
    const body = 'Closes #4\n\n<!-- issueloop:followups 2 answered 31,32 -->\n<!-- issueloop:pr -->';
    const detail = await detailOf(
      rawDetail({}, { mergeable: false, mergeable_state: 'dirty', review_comments: 3, body }),
    );
    expect(detail).toMatchObject({
      number: 9,
      issue: 4,
      headSha: SHA,
      mergeable: false,
      mergeableState: 'dirty',
      followups: 2,
      answeredReviews: [31, 32],
      reviewComments: 3,
    });
  });

  it('while GitHub computes mergeability: null and unknown, not a guess; no body means no follow-ups', async () => {
    const detail = await detailOf(rawDetail({}, { body: null }));
    expect(detail).toMatchObject({ issue: 4, mergeable: null, mergeableState: 'unknown', followups: 0 });
    expect(detail.answeredReviews).toEqual([]);
    expect(detail.reviewComments).toBe(0);
  });

  it("a fork's PR read by number is refused, not followed up", async () => {
    const fork = rawDetail({ label: 'mallory:issueloop/issue-4', repo: { full_name: 'mallory/widgets' } });
    await expect(detailOf(fork)).rejects.toThrow(/#9 is not on an issueloop\/issue-<n> branch/);
    await expect(detailOf(rawDetail({ ref: 'feature/x' }))).rejects.toThrow(/read pull request #9 failed/);
  });
});

describe('createPullWatch.requiredChecks', () => {
  it('reads protection and rulesets; a protection answering 404 is not asked again by the same watch', async () => {
    const gh = scriptedGitHub();
    const rules = `${REPO}/rules/branches/main?per_page=100`;
    gh.answer(rules, {
      body: [
        { type: 'required_status_checks', parameters: { required_status_checks: [{ context: 'ci/x' }] } },
      ],
    });
    const watch = createPullWatch(gh.client, createMemoryEtagCache());
    const first = await watch.requiredChecks('main');
    const second = await watch.requiredChecks('main');
    for (const read of [first, second]) {
      expect(read).toEqual({ checks: [{ context: 'ci/x', appId: null }], unreadable: ['branch protection'] });
    }
    const protection = `${REPO}/branches/main/protection/required_status_checks`;
    expect(gh.requests).toEqual([protection, rules, rules]);
  });
});

describe('createPullWatch: a failed read names what it was reading', () => {
  it('each read’s error says which (the listing, the PR, the checks or statuses of a short sha)', async () => {
    const gh = scriptedGitHub();
    const watch = createPullWatch(gh.client, createMemoryEtagCache());
    const policy = { apps: new Set<string>(), names: new Set<string>(), required: [] };
    await expect(watch.ownPulls()).rejects.toThrow(/^list own pull requests failed/);
    gh.answer(`${REPO}/pulls?state=open&per_page=100`, { body: [] });
    await expect(watch.ownPulls()).rejects.toThrow(/^list own closed pull requests failed/);
    await expect(watch.detail(9)).rejects.toThrow(/^read pull request #9 failed/);
    await expect(watch.checks(SHA, policy)).rejects.toThrow(/^read the checks of c0ffee0 failed/);
    gh.answer(`${REPO}/commits/${SHA}/check-runs?filter=all&per_page=100`, { body: { check_runs: [] } });
    await expect(watch.checks(SHA, policy)).rejects.toThrow(/^read the statuses of c0ffee0 failed/);
  });
});
