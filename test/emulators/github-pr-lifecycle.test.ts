import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PullJson } from '../../src/emulators/github/index.js';
import { call, clockedEmulator, octokit, REPO } from './emulator-fixtures.js';
import { type OriginRepo, originRepo } from './origin-repo.js';

const params = { owner: 'octo-org', repo: 'widgets' } as const;

let repo: OriginRepo;
let feature = '';
let clash = '';

/** A bare repository for each test of the calling block: `feature` and `clash` off main. */
function withOrigin() {
  beforeEach(async () => {
    repo = await originRepo({ 'greeting.txt': 'hello\n', 'world.txt': 'world\n' });
    feature = await repo.commitOn(
      'feature',
      { 'world.txt': 'brave new world\n' },
      'Greet the brave new world',
    );
    clash = await repo.commitOn('clash', { 'greeting.txt': 'goodbye\n' }, 'Say goodbye');
  });
  afterEach(async () => {
    await repo.cleanup();
  });
}

/** An emulator on the bare repository, an issue, and a PR from `head` that says it fixes the issue. */
async function setup(head = 'feature', extra: { draft?: boolean } = {}) {
  const clocked = clockedEmulator({ origin: repo.origin });
  const issue = clocked.emulator.addIssue({ title: 'Greet better', author: 'octocat' });
  const gh = octokit(clocked.emulator);
  const created = await gh.rest.pulls.create({
    ...params,
    head,
    base: 'main',
    title: `Change ${head}`,
    body: `Some words.\n\nfixes #${issue}`,
    ...extra,
  });
  return { ...clocked, gh, issue, pr: created.data };
}

const getPull = (emulator: Parameters<typeof call>[0], number: number) =>
  call<PullJson>(emulator, 'GET', `${REPO}/pulls/${number}`);

describe('pull requests on real refs (origin)', () => {
  withOrigin();

  it('carries the commits of its branches; mergeability is computed on the single GET only', async () => {
    const { emulator, pr } = await setup();
    expect(pr.head.sha).toBe(feature);
    expect(pr.base.sha).toBe(await repo.bare('rev-parse', 'refs/heads/main'));
    // Right after creation GitHub has not computed it yet.
    expect([pr.mergeable, pr.mergeable_state]).toEqual([null, 'unknown']);
    const got = await getPull(emulator, pr.number);
    expect(got.json).toMatchObject({
      mergeable: true,
      mergeable_state: 'clean',
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by: null,
    });
    const listed = await call<Array<Record<string, unknown>>>(emulator, 'GET', `${REPO}/pulls`);
    expect(listed.json[0]).toMatchObject({ number: pr.number, merged_at: null, merge_commit_sha: null });
    expect(listed.json[0]).not.toHaveProperty('mergeable');
    expect(listed.json[0]).not.toHaveProperty('merged');
  });

  it('refuses a PR whose head or base the repository does not have', async () => {
    const { emulator } = await setup();
    const missing = await call(emulator, 'POST', `${REPO}/pulls`, {
      body: { title: 't', head: 'no-such-branch', base: 'main' },
    });
    expect(missing).toMatchObject({
      status: 422,
      json: {
        message: 'Validation Failed',
        errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }],
      },
    });
  });

  it('follows a push to the head, which moves updated_at', async () => {
    const { emulator, advance, pr } = await setup();
    advance(60_000);
    const pushed = await repo.commitOn('feature', { 'world.txt': 'braver world\n' }, 'Braver');
    const got = await getPull(emulator, pr.number);
    expect(got.json.head.sha).toBe(pushed);
    expect(got.json.updated_at).toBe('2026-11-21T12:31:00Z');
  });

  it('says dirty and refuses to merge when the branches conflict (405)', async () => {
    const { emulator, pr } = await setup('clash');
    expect((await getPull(emulator, pr.number)).json.mergeable_state).toBe('clean');
    await repo.commitOn('main', { 'greeting.txt': 'hi\n' }, 'Say hi');
    const got = await getPull(emulator, pr.number);
    expect(got.json).toMatchObject({ mergeable: false, mergeable_state: 'dirty', head: { sha: clash } });
    const before = await repo.bare('rev-parse', 'refs/heads/main');
    const refused = await call(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, { body: {} });
    expect(refused).toMatchObject({ status: 405, json: { message: 'Pull Request is not mergeable' } });
    expect(await repo.bare('rev-parse', 'refs/heads/main')).toBe(before);
    expect(() => emulator.mergePull(pr.number, 'maintainer')).toThrow(/not mergeable/);
  });

  it('says behind and refuses to merge (405) when the base requires up-to-date branches and moved; clean without the rule', async () => {
    const { emulator, pr } = await setup();
    await repo.commitOn('main', { 'other.txt': 'other\n' }, 'Other work');
    expect((await getPull(emulator, pr.number)).json.mergeable_state).toBe('clean');
    emulator.requireUpToDate('main');
    const got = await getPull(emulator, pr.number);
    expect(got.json).toMatchObject({ mergeable: true, mergeable_state: 'behind' });
    const refused = await call(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, { body: {} });
    expect(refused).toMatchObject({
      status: 405,
      json: { message: 'Head branch is out of date. Review and try the merge again.' },
    });
  });

  it('reports unstable while a check of the head fails or is pending, clean once all pass', async () => {
    const { emulator, pr } = await setup();
    const run = emulator.addCheckRun({
      ref: 'feature',
      name: 'test',
      status: 'completed',
      conclusion: 'failure',
    });
    expect((await getPull(emulator, pr.number)).json.mergeable_state).toBe('unstable');
    emulator.updateCheckRun(run.id, { conclusion: 'success' });
    expect((await getPull(emulator, pr.number)).json.mergeable_state).toBe('clean');
    emulator.addStatus(feature, { context: 'ci/lint', state: 'pending' });
    expect((await getPull(emulator, pr.number)).json.mergeable_state).toBe('unstable');
    emulator.addStatus('feature', { context: 'ci/lint', state: 'success' });
    expect((await getPull(emulator, pr.number)).json.mergeable_state).toBe('clean');
  });

  it('says draft for a draft and refuses to merge it (405)', async () => {
    const { emulator, pr } = await setup('feature', { draft: true });
    expect((await getPull(emulator, pr.number)).json.mergeable_state).toBe('draft');
    const refused = await call(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, { body: {} });
    expect(refused).toMatchObject({ status: 405, json: { message: 'Pull Request is still a draft' } });
  });
});

describe('merging (PUT /pulls/{n}/merge)', () => {
  withOrigin();

  it('merges for real: a merge commit on main, the PR merged and closed, its issue closed as completed', async () => {
    const { emulator, advance, gh, issue, pr } = await setup();
    await repo.commitOn('main', { 'greeting.txt': 'hi\n' }, 'Say hi');
    const main = await repo.bare('rev-parse', 'refs/heads/main');
    const stale = await call(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, { body: { sha: main } });
    expect(stale).toMatchObject({
      status: 409,
      json: { message: 'Head branch was modified. Review and try the merge again.' },
    });
    advance(120_000);
    const merged = await gh.rest.pulls.merge({ ...params, pull_number: pr.number, sha: feature });
    expect(merged.status).toBe(200);
    expect(merged.data).toEqual({
      sha: merged.data.sha,
      merged: true,
      message: 'Pull Request successfully merged',
    });
    const sha = merged.data.sha;
    expect(await repo.bare('rev-parse', 'refs/heads/main')).toBe(sha);
    expect(await repo.bare('rev-list', '--parents', '-n', '1', sha)).toBe(`${sha} ${main} ${feature}`);
    expect(await repo.bare('show', `${sha}:world.txt`)).toBe('brave new world');
    expect(await repo.bare('show', `${sha}:greeting.txt`)).toBe('hi');
    expect(await repo.bare('log', '-1', '--format=%s|%an|%cn', sha)).toBe(
      `Merge pull request #${pr.number} from octo-org/feature|issueloop-bot|GitHub`,
    );

    const got = await getPull(emulator, pr.number);
    expect(got.json).toMatchObject({
      state: 'closed',
      merged: true,
      merged_at: '2026-11-21T12:32:00Z',
      closed_at: '2026-11-21T12:32:00Z',
      updated_at: '2026-11-21T12:32:00Z',
      merge_commit_sha: sha,
      merged_by: { login: 'issueloop-bot' },
      mergeable: null,
      mergeable_state: 'unknown',
      head: { sha: feature },
    });
    expect(emulator.issue(pr.number)?.pull_request?.merged_at).toBe('2026-11-21T12:32:00Z');
    expect(emulator.issue(issue)).toMatchObject({ state: 'closed', state_reason: 'completed' });
    const events = await call<Array<{ event: string; commit_id: string | null }>>(
      emulator,
      'GET',
      `${REPO}/issues/${issue}/events`,
    );
    expect(events.json.map((e) => [e.event, e.commit_id])).toEqual([['closed', sha]]);
    const prEvents = await call<Array<{ event: string }>>(
      emulator,
      'GET',
      `${REPO}/issues/${pr.number}/events`,
    );
    expect(prEvents.json.map((e) => e.event)).toEqual(['merged', 'closed']);
    expect((await call(emulator, 'GET', `${REPO}/pulls/${pr.number}/merge`)).status).toBe(204);

    const again = await call(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, { body: {} });
    expect(again).toMatchObject({ status: 405, json: { message: 'Pull Request is not mergeable' } });
    const reopen = await call(emulator, 'PATCH', `${REPO}/pulls/${pr.number}`, { body: { state: 'open' } });
    expect(reopen.status).toBe(422);
  });

  it('squashes into one commit with the base as its only parent', async () => {
    const { emulator, pr } = await setup();
    await repo.commitOn('feature', { 'extra.txt': 'more\n' }, 'Add more');
    const main = await repo.bare('rev-parse', 'refs/heads/main');
    const merged = await call<{ sha: string }>(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, {
      body: { merge_method: 'squash' },
    });
    expect(merged.status).toBe(200);
    expect(await repo.bare('rev-list', '--parents', '-n', '1', merged.json.sha)).toBe(
      `${merged.json.sha} ${main}`,
    );
    expect(await repo.bare('log', '-1', '--format=%B', merged.json.sha)).toBe(
      `Change feature (#${pr.number})\n\n* Greet the brave new world\n\n* Add more`,
    );
    expect(await repo.bare('show', `${merged.json.sha}:extra.txt`)).toBe('more');
  });

  it('rebases the head commits onto a base that moved on', async () => {
    const { emulator, pr } = await setup();
    await repo.commitOn('feature', { 'extra.txt': 'more\n' }, 'Add more');
    await repo.commitOn('main', { 'greeting.txt': 'hi\n' }, 'Say hi');
    const merged = await call<{ sha: string }>(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, {
      body: { merge_method: 'rebase' },
    });
    expect(merged.status).toBe(200);
    expect(await repo.bare('log', '--format=%s|%an|%cn', 'refs/heads/main')).toBe(
      [
        'Add more|Octo Cat|GitHub',
        'Greet the brave new world|Octo Cat|GitHub',
        'Say hi|Octo Cat|Octo Cat',
        'Initial|Octo Cat|Octo Cat',
      ].join('\n'),
    );
    expect(await repo.bare('show', 'refs/heads/main:greeting.txt')).toBe('hi');
  });

  it('answers 422 for an unknown merge method and 404 for an issue', async () => {
    const { emulator, issue, pr } = await setup();
    const bad = await call(emulator, 'PUT', `${REPO}/pulls/${pr.number}/merge`, {
      body: { merge_method: 'octopus' },
    });
    expect(bad).toMatchObject({
      status: 422,
      json: { errors: [{ field: 'merge_method', code: 'invalid' }] },
    });
    expect((await call(emulator, 'PUT', `${REPO}/pulls/${issue}/merge`, { body: {} })).status).toBe(404);
  });
});
