import { describe, expect, it } from 'vitest';
import { createMemoryEtagCache } from '../../src/github/etag-cache.js';
import { createPullWatch } from '../../src/github/pr-watch.js';
import { checkPolicy } from '../../src/github/relied-checks.js';
import { scriptedGitHub } from '../helpers/scripted-github.js';

/**
 * The verdict on a head commit's checks and statuses, from GitHub's raw answers: a stale failure
 * that was re-run green must not fail the PR (a follow-up for nothing), and a failing one must never
 * pass for green (a PR left broken, or merged).
 */

const REPO = '/repos/octo-org/widgets';
const SHA = 'c0ffee'.padEnd(40, '0');
const RUNS = `${REPO}/commits/${SHA}/check-runs?filter=all&per_page=100`;
const STATUSES = `${REPO}/commits/${SHA}/status?per_page=100`;
const ACTIONS = { slug: 'github-actions', id: 15368 };
const everything = checkPolicy(['app:github-actions', 'ci/jenkins', 'ci/lint']);

const run = (id: number, name: string, conclusion: string | null, status = 'completed') => ({
  id,
  name,
  status,
  conclusion,
  app: ACTIONS,
  output: { title: `${name} ${conclusion}`, summary: null },
});

async function verdict(runs: unknown[], statuses: unknown[], policy = everything) {
  const gh = scriptedGitHub();
  gh.answer(RUNS, { body: { total_count: runs.length, check_runs: runs } });
  gh.answer(STATUSES, { body: { state: 'pending', statuses } });
  return createPullWatch(gh.client, createMemoryEtagCache()).checks(SHA, policy);
}

describe('createPullWatch.checks: superseded statuses and re-runs', () => {
  it('a status context re-run green does not still fail the PR (the newest status of each context counts)', async () => {
    // GitHub lists a commit's statuses newest first.
    const summary = await verdict(
      [],
      [
        { context: 'ci/jenkins', state: 'success' },
        { context: 'ci/jenkins', state: 'failure', description: 'flaky' },
      ],
    );
    expect(summary).toMatchObject({ state: 'passed', failed: [], total: 1 });
  });

  it('a status context that went red after green fails the PR, with the newest description', async () => {
    const summary = await verdict(
      [],
      [
        { context: 'ci/jenkins', state: 'error', description: 'agent lost' },
        { context: 'ci/jenkins', state: 'success' },
        { context: 'ci/lint', state: 'success' },
      ],
    );
    expect(summary.state).toBe('failed');
    expect(summary.total).toBe(2);
    expect(summary.failed).toEqual([
      { kind: 'status', name: 'ci/jenkins', conclusion: 'error', summary: 'agent lost' },
    ]);
  });

  it('a check run re-run green (a higher id) does not fail the PR; the stale red run is not reported', async () => {
    const summary = await verdict([run(2, 'test', 'success'), run(1, 'test', 'failure')], []);
    expect(summary).toMatchObject({ state: 'passed', failed: [], total: 1 });
  });
});

describe('createPullWatch.checks: conclusions', () => {
  it('timed_out is a failing conclusion', async () => {
    const summary = await verdict([run(1, 'build', 'success'), run(2, 'test', 'timed_out')], []);
    expect(summary.state).toBe('failed');
    expect(summary.failed.map((f) => [f.kind, f.id, f.name, f.conclusion])).toEqual([
      ['check_run', 2, 'test', 'timed_out'],
    ]);
    expect(summary.failed[0]?.summary).toBe('test timed_out');
  });

  it.each(['failure', 'cancelled', 'action_required', 'startup_failure', 'stale'])(
    '%s fails the PR',
    async (c) => {
      const summary = await verdict([run(1, 'test', c)], []);
      expect(summary.state).toBe('failed');
      expect(summary.failed.map((f) => f.conclusion)).toEqual([c]);
    },
  );

  it('neutral and skipped pass; a run still in progress or queued keeps the PR pending', async () => {
    const done = await verdict([run(1, 'lint', 'neutral'), run(2, 'docs', 'skipped')], []);
    expect(done).toMatchObject({ state: 'passed', failed: [], pending: [], total: 2 });
    const waiting = await verdict(
      [run(1, 'lint', 'failure'), run(2, 'test', null, 'in_progress')],
      [{ context: 'ci/jenkins', state: 'pending' }],
    );
    expect(waiting.state).toBe('pending');
    expect(waiting.pending).toEqual(['test', 'ci/jenkins']);
    expect(waiting.failed.map((f) => f.name)).toEqual(['lint']);
  });

  it('no check and no status at all is none, not pending (GitHub’s combined state is not trusted)', async () => {
    expect(await verdict([], [])).toMatchObject({ state: 'none', total: 0, failed: [], pending: [] });
  });

  it('a check the policy does not rely on is ignored and counted, not failed', async () => {
    const foreign = { ...run(3, 'test', 'failure'), app: { slug: 'evil-app', id: 7 } };
    const summary = await verdict(
      [run(1, 'test', 'success'), foreign],
      [{ context: 'anyone/says', state: 'failure' }],
    );
    expect(summary).toMatchObject({ state: 'passed', total: 1, failed: [] });
    expect(summary.ignored).toEqual([
      { kind: 'check_run', name: 'test', source: 'evil-app', state: 'failure' },
      { kind: 'status', name: 'anyone/says', source: 'status', state: 'failure' },
    ]);
  });
});

describe('createPullWatch.checks: paging', () => {
  it('a failing run on a later page is seen; statuses are read page by page too', async () => {
    const gh = scriptedGitHub();
    const passing = Array.from({ length: 100 }, (_, i) => ({ ...run(10 + i, `job ${i}`, 'success') }));
    gh.answer(RUNS, { body: { check_runs: passing }, next: `${RUNS}&page=2` });
    gh.answer(`${RUNS}&page=2`, { body: { check_runs: [run(500, 'test', 'failure')] } });
    gh.answer(STATUSES, { body: { statuses: [] }, next: `${STATUSES}&page=2` });
    gh.answer(`${STATUSES}&page=2`, { body: { statuses: [{ context: 'ci/lint', state: 'failure' }] } });
    const summary = await createPullWatch(gh.client, createMemoryEtagCache()).checks(SHA, everything);
    expect(summary.total).toBe(102);
    expect(summary.failed.map((f) => f.name)).toEqual(['test', 'ci/lint']);
  });

  it('reads ten pages of check runs at most (a runaway guard), and no further', async () => {
    const gh = scriptedGitHub();
    for (let page = 1; page <= 11; page += 1) {
      const url = page === 1 ? RUNS : `${RUNS}&page=${page}`;
      gh.answer(url, {
        body: { check_runs: [run(page, `job ${page}`, 'success')] },
        next: `${RUNS}&page=${page + 1}`,
      });
    }
    gh.answer(STATUSES, { body: { statuses: [] } });
    const summary = await createPullWatch(gh.client, createMemoryEtagCache()).checks(SHA, everything);
    expect(summary).toMatchObject({ state: 'passed', total: 10 });
    expect(gh.requests.filter((r) => r.includes('/check-runs'))).toHaveLength(10);
  });

  it('answers without a list (a malformed body) count as no checks rather than crashing', async () => {
    const gh = scriptedGitHub();
    gh.answer(RUNS, { body: { total_count: 0 } });
    gh.answer(STATUSES, { body: { state: 'pending' } });
    const summary = await createPullWatch(gh.client, createMemoryEtagCache()).checks(SHA, everything);
    expect(summary).toMatchObject({ state: 'none', total: 0 });
    expect(gh.requests).toEqual([RUNS, STATUSES]);
  });
});

describe('createPullWatch.checks: what a verdict reports', () => {
  it('a failing run names its title and summary, joined, and its details link; a status its target link', async () => {
    const failing = {
      ...run(4, 'test', 'failure'),
      details_url: 'https://ci.test/run/4',
      output: { title: '2 failed', summary: 'see a.test.js' },
    };
    const summary = await verdict(
      [failing],
      [{ context: 'ci/jenkins', state: 'failure', target_url: 'https://ci.test/job/9' }],
    );
    expect(summary.failed).toEqual([
      {
        kind: 'check_run',
        id: 4,
        name: 'test',
        conclusion: 'failure',
        summary: '2 failed: see a.test.js',
        detailsUrl: 'https://ci.test/run/4',
      },
      {
        kind: 'status',
        name: 'ci/jenkins',
        conclusion: 'failure',
        summary: '',
        detailsUrl: 'https://ci.test/job/9',
      },
    ]);
  });

  it('a failing run without output, or without an app (relied on by name), is still reported, not a crash', async () => {
    const bare = {
      id: 5,
      name: 'ci/lint',
      status: 'completed',
      conclusion: 'failure',
      output: null,
      app: null,
    };
    const rerun = { ...bare, id: 3, conclusion: 'success' };
    const summary = await verdict([rerun, bare], []);
    expect(summary).toMatchObject({ state: 'failed', total: 1 });
    expect(summary.failed).toEqual([
      { kind: 'check_run', id: 5, name: 'ci/lint', conclusion: 'failure', summary: '' },
    ]);
  });

  it('an ignored run still going is pending, one completed without a conclusion unknown; no app says so', async () => {
    const foreign = { slug: 'evil-app', id: 7 };
    const summary = await verdict(
      [
        { ...run(1, 'slow', null, 'in_progress'), app: foreign },
        { ...run(2, 'odd', null), app: foreign },
        { ...run(3, 'orphan', 'failure'), app: null },
      ],
      [],
    );
    expect(summary).toMatchObject({ state: 'none', total: 0, pending: [] });
    expect(summary.ignored).toEqual([
      { kind: 'check_run', name: 'slow', source: 'evil-app', state: 'pending' },
      { kind: 'check_run', name: 'odd', source: 'evil-app', state: 'unknown' },
      { kind: 'check_run', name: 'orphan', source: 'unknown app', state: 'failure' },
    ]);
  });
});
