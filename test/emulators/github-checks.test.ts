import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { BASE, call, clockedEmulator, octokit, REPO } from './emulator-fixtures.js';
import { originRepo } from './origin-repo.js';

const BRANCH = 'issueloop/issue-1';
const HEAD = createHash('sha1').update(`ref:octo-org:${BRANCH}`).digest('hex');
const LOG =
  '2026-11-21T12:30:01Z ##[group]Run npm test\n1 failing\n##[error]Process completed with exit code 1.\n';

interface CheckRuns {
  total_count: number;
  check_runs: Array<Record<string, unknown> & { id: number; name: string; conclusion: string | null }>;
}

function failedBuild() {
  const clocked = clockedEmulator();
  const run = clocked.emulator.addCheckRun({
    ref: BRANCH,
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    output: { title: '1 failing', summary: 'greeting.test.ts failed', text: 'expected hi' },
    annotations: [
      {
        path: 'src/greeting.ts',
        start_line: 3,
        end_line: 4,
        annotation_level: 'failure',
        message: 'expected hi, got hello',
        title: 'greets',
      },
    ],
    log: LOG,
  });
  return { ...clocked, run };
}

describe('check runs', () => {
  it('lists the runs of a branch’s head in GitHub’s shape, the branch sent encoded or not', async () => {
    const { emulator, run } = failedBuild();
    expect(run.jobId).toBe(run.id);
    const encoded = await call<CheckRuns>(
      emulator,
      'GET',
      `${REPO}/commits/${encodeURIComponent(BRANCH)}/check-runs`,
    );
    expect(encoded.status).toBe(200);
    expect(encoded.json.total_count).toBe(1);
    expect(encoded.json.check_runs[0]).toMatchObject({
      id: run.id,
      name: 'test',
      head_sha: HEAD,
      status: 'completed',
      conclusion: 'failure',
      started_at: '2026-11-21T12:30:00Z',
      completed_at: '2026-11-21T12:30:00Z',
      url: `${BASE}${REPO}/check-runs/${run.id}`,
      details_url: expect.stringMatching(
        new RegExp(`^https://github.test/octo-org/widgets/actions/runs/\\d+/job/${run.id}$`),
      ),
      output: {
        title: '1 failing',
        summary: 'greeting.test.ts failed',
        text: 'expected hi',
        annotations_count: 1,
        annotations_url: `${BASE}${REPO}/check-runs/${run.id}/annotations`,
      },
      app: { slug: 'github-actions' },
    });
    const plain = await call<CheckRuns>(emulator, 'GET', `${REPO}/commits/${BRANCH}/check-runs`);
    const bySha = await call<CheckRuns>(emulator, 'GET', `${REPO}/commits/${HEAD}/check-runs`);
    expect(plain.json).toEqual(encoded.json);
    expect(bySha.json).toEqual(encoded.json);
    const single = await call(emulator, 'GET', `${REPO}/check-runs/${run.id}`);
    expect(single.json).toEqual(encoded.json.check_runs[0]);
    expect((await call(emulator, 'GET', `${REPO}/check-runs/424242`)).status).toBe(404);
  });

  it('shows the newest run of each name by default, every run with filter=all', async () => {
    const { emulator, run } = failedBuild();
    const rerun = emulator.addCheckRun({ sha: HEAD, name: 'test', status: 'in_progress' });
    emulator.addCheckRun({ sha: HEAD, name: 'lint', status: 'completed', conclusion: 'success' });
    const latest = await call<CheckRuns>(emulator, 'GET', `${REPO}/commits/${HEAD}/check-runs`);
    expect(latest.json.check_runs.map((r) => [r.name, r.id, r.conclusion])).toEqual([
      ['lint', rerun.id + 1, 'success'],
      ['test', rerun.id, null],
    ]);
    const all = await call<CheckRuns>(emulator, 'GET', `${REPO}/commits/${HEAD}/check-runs?filter=all`);
    expect(all.json.check_runs.map((r) => r.id)).toEqual([rerun.id + 1, rerun.id, run.id]);
    const named = await call<CheckRuns>(
      emulator,
      'GET',
      `${REPO}/commits/${HEAD}/check-runs?check_name=lint`,
    );
    expect(named.json.total_count).toBe(1);
  });

  it('answers 304 to If-None-Match without charging, and a new ETag once a run changes', async () => {
    const { emulator, run } = failedBuild();
    const path = `${REPO}/commits/${HEAD}/check-runs`;
    const first = await call(emulator, 'GET', path);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"[0-9a-f]{40}"$/);
    emulator.resetRequests();
    const again = await call(emulator, 'GET', path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(emulator.requests.map((r) => [r.status, r.charged])).toEqual([[304, false]]);
    emulator.updateCheckRun(run.id, { status: 'in_progress' });
    const changed = await call<CheckRuns>(emulator, 'GET', path, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.json.check_runs[0]).toMatchObject({
      status: 'in_progress',
      conclusion: null,
      completed_at: null,
    });
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('lists a run’s annotations', async () => {
    const { emulator, run } = failedBuild();
    emulator.updateCheckRun(run.id, {
      annotations: [
        { path: 'README.md', start_line: 1, end_line: 1, annotation_level: 'notice', message: 'typo' },
      ],
    });
    const notes = await call<unknown[]>(emulator, 'GET', `${REPO}/check-runs/${run.id}/annotations`);
    expect(notes.json).toEqual([
      {
        path: 'src/greeting.ts',
        blob_href: `https://github.test/octo-org/widgets/blob/${HEAD}/src/greeting.ts`,
        start_line: 3,
        end_line: 4,
        start_column: null,
        end_column: null,
        annotation_level: 'failure',
        title: 'greets',
        message: 'expected hi, got hello',
        raw_details: null,
      },
      expect.objectContaining({ path: 'README.md', annotation_level: 'notice', title: null }),
    ]);
  });

  it('refuses a completed seed without a conclusion, and a branch origin does not have', async () => {
    const repo = await originRepo({ 'a.txt': 'a\n' });
    try {
      const { emulator } = clockedEmulator({ origin: repo.origin });
      expect(() => emulator.addCheckRun({ ref: 'main', name: 'x', status: 'completed' })).toThrow(
        /conclusion/,
      );
      expect(() => emulator.addCheckRun({ ref: 'nope', name: 'x', status: 'queued' })).toThrow(
        /no branch nope/,
      );
      const main = await repo.bare('rev-parse', 'refs/heads/main');
      emulator.addCheckRun({ ref: 'main', name: 'x', status: 'queued' });
      const runs = await call<CheckRuns>(emulator, 'GET', `${REPO}/commits/main/check-runs`);
      expect(runs.json.check_runs[0]?.head_sha).toBe(main);
      const unknown = await call(emulator, 'GET', `${REPO}/commits/nope/check-runs`);
      expect(unknown).toMatchObject({ status: 422, json: { message: 'No commit found for SHA: nope' } });
    } finally {
      await repo.cleanup();
    }
  });
});

describe('job logs', () => {
  it('redirects to a pre-signed URL under the emulator’s base, which serves the log as text', async () => {
    const { emulator, run } = failedBuild();
    const path = `${REPO}/actions/jobs/${run.jobId}/logs`;
    const manual = await emulator.fetch(`${BASE}${path}`, {
      headers: { authorization: `token ${DEFAULT_TOKEN}` },
      redirect: 'manual',
    });
    expect(manual.status).toBe(302);
    const location = manual.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${BASE}/_emulator/logs/${run.jobId}\\?token=[0-9a-f]{32}$`));

    emulator.resetRequests();
    const followed = await emulator.fetch(`${BASE}${path}`, {
      headers: { authorization: `token ${DEFAULT_TOKEN}` },
    });
    expect(followed.status).toBe(200);
    expect(followed.redirected).toBe(true);
    expect(followed.url).toBe(location);
    expect(followed.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await followed.text()).toBe(LOG);
    expect(
      emulator.requests.map((r) => [r.path.replace(/token=\w+/, 'token=…'), r.status, r.charged]),
    ).toEqual([
      [path, 302, true],
      [`/_emulator/logs/${run.jobId}?token=…`, 200, false],
    ]);

    const viaOctokit = await octokit(emulator).rest.actions.downloadJobLogsForWorkflowRun({
      owner: 'octo-org',
      repo: 'widgets',
      job_id: run.jobId,
    });
    expect(viaOctokit.data).toBe(LOG);
    const forged = await emulator.fetch(location.replace(/token=\w+/, 'token=forged'));
    expect(forged.status).toBe(403);
  });

  it('has no log for a run without one (404), and serves the redirect over a real socket too', async () => {
    const { emulator, run } = failedBuild();
    const quiet = emulator.addCheckRun({ sha: HEAD, name: 'lint', status: 'queued' });
    expect((await call(emulator, 'GET', `${REPO}/actions/jobs/${quiet.jobId}/logs`)).status).toBe(404);
    const server = await emulator.listen();
    try {
      const response = await fetch(`${server.url}${REPO}/actions/jobs/${run.jobId}/logs`, {
        headers: { authorization: `token ${DEFAULT_TOKEN}` },
      });
      expect(response.status).toBe(200);
      expect(response.url.startsWith(`${server.url}/_emulator/logs/`)).toBe(true);
      expect(await response.text()).toBe(LOG);
    } finally {
      await server.close();
    }
  });
});

interface Combined {
  state: string;
  sha: string;
  total_count: number;
  statuses: Array<Record<string, unknown>>;
}

describe('commit statuses', () => {
  it('combines the newest status of each context: failure over pending over success', async () => {
    const { emulator } = clockedEmulator();
    const path = `${REPO}/commits/${BRANCH}/status`;
    expect((await call<Combined>(emulator, 'GET', path)).json).toMatchObject({
      state: 'pending',
      sha: HEAD,
      total_count: 0,
      statuses: [],
    });
    emulator.addStatus(BRANCH, { context: 'ci/lint', state: 'pending', description: 'Linting' });
    emulator.addStatus(HEAD, {
      context: 'ci/lint',
      state: 'success',
      description: 'Clean',
      target_url: 'https://ci.test/1',
    });
    expect((await call<Combined>(emulator, 'GET', path)).json.state).toBe('success');
    emulator.addStatus(BRANCH, { context: 'ci/e2e', state: 'error', creator: 'ci-bot' });
    const combined = await call<Combined>(emulator, 'GET', path);
    expect(combined.json.state).toBe('failure');
    expect(combined.json.total_count).toBe(2);
    expect(combined.json.statuses.map((s) => [s.context, s.state])).toEqual([
      ['ci/e2e', 'error'],
      ['ci/lint', 'success'],
    ]);
    expect(combined.json.statuses[1]).toMatchObject({
      description: 'Clean',
      target_url: 'https://ci.test/1',
      url: `${BASE}${REPO}/statuses/${HEAD}`,
    });
    expect(combined.json.statuses[1]).not.toHaveProperty('creator');

    const all = await call<Array<{ context: string; state: string; creator: { login: string } }>>(
      emulator,
      'GET',
      `${REPO}/commits/${HEAD}/statuses`,
    );
    expect(all.json.map((s) => [s.context, s.state, s.creator.login])).toEqual([
      ['ci/e2e', 'error', 'ci-bot'],
      ['ci/lint', 'success', 'issueloop-bot'],
      ['ci/lint', 'pending', 'issueloop-bot'],
    ]);
  });
});
