import { describe, expect, it } from 'vitest';
import { call, clockedEmulator, octokit, REPO } from './emulator-fixtures.js';

describe('comments', () => {
  it('creates a comment as the token’s user and edits it', async () => {
    const { emulator, advance } = clockedEmulator();
    const n = emulator.addIssue({ title: 't', author: 'alice' });
    emulator.addComment(n, { author: 'alice', body: 'first' });
    const gh = octokit(emulator);
    const created = await gh.rest.issues.createComment({
      owner: 'octo-org',
      repo: 'widgets',
      issue_number: n,
      body: 'hi',
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      body: 'hi',
      user: { login: 'issueloop-bot' },
      author_association: 'COLLABORATOR',
    });
    expect(created.data.html_url).toBe(
      `https://github.test/octo-org/widgets/issues/${n}#issuecomment-${created.data.id}`,
    );

    advance(60_000);
    const edited = await gh.rest.issues.updateComment({
      owner: 'octo-org',
      repo: 'widgets',
      comment_id: created.data.id,
      body: 'edited',
    });
    expect(edited.data).toMatchObject({
      body: 'edited',
      created_at: '2026-11-21T12:30:00Z',
      updated_at: '2026-11-21T12:31:00Z',
    });
    expect(emulator.comments(n).map((c) => [c.user.login, c.body])).toEqual([
      ['alice', 'first'],
      ['issueloop-bot', 'edited'],
    ]);
    expect(emulator.issue(n)?.comments).toBe(2);
    const missing = await call(emulator, 'PATCH', `${REPO}/issues/comments/424242`, { body: { body: 'x' } });
    expect(missing.status).toBe(404);
    const listed = await call<Array<{ body: string }>>(emulator, 'GET', `${REPO}/issues/${n}/comments`);
    expect(listed.json.map((c) => c.body)).toEqual(['first', 'edited']);
  });
});

describe('labels', () => {
  it('adds labels (creating missing ones on the repository) and removes them', async () => {
    const { emulator } = clockedEmulator();
    emulator.addLabel('issueloop', '0e8a16');
    const n = emulator.addIssue({ title: 't', author: 'alice', labels: ['issueloop'] });
    const added = await call<Array<{ name: string; color: string }>>(
      emulator,
      'POST',
      `${REPO}/issues/${n}/labels`,
      {
        body: { labels: ['issueloop:in-progress'] },
      },
    );
    expect(added.status).toBe(200);
    expect(added.json.map((l) => [l.name, l.color])).toEqual([
      ['issueloop', '0e8a16'],
      ['issueloop:in-progress', 'ededed'],
    ]);
    expect(emulator.repoLabels().map((l) => l.name)).toEqual(['issueloop', 'issueloop:in-progress']);

    const removed = await call<Array<{ name: string }>>(
      emulator,
      'DELETE',
      `${REPO}/issues/${n}/labels/${encodeURIComponent('issueloop:in-progress')}`,
    );
    expect(removed.json.map((l) => l.name)).toEqual(['issueloop']);
    expect(emulator.labelsOf(n)).toEqual(['issueloop']);
    const again = await call(emulator, 'DELETE', `${REPO}/issues/${n}/labels/issueloop%3Ain-progress`);
    expect(again).toMatchObject({ status: 404, json: { message: 'Label does not exist' } });
  });

  it('finds a label case-insensitively and refuses a duplicate with 422 already_exists', async () => {
    const { emulator } = clockedEmulator();
    const gh = octokit(emulator);
    const created = await gh.rest.issues.createLabel({
      owner: 'octo-org',
      repo: 'widgets',
      name: 'Needs Human',
      color: 'd93f0b',
    });
    expect(created.status).toBe(201);
    const got = await call<{ name: string }>(emulator, 'GET', `${REPO}/labels/needs%20human`);
    expect(got).toMatchObject({ status: 200, json: { name: 'Needs Human' } });
    expect((await call(emulator, 'GET', `${REPO}/labels/absent`)).status).toBe(404);
    const duplicate = await call(emulator, 'POST', `${REPO}/labels`, { body: { name: 'needs human' } });
    expect(duplicate).toMatchObject({
      status: 422,
      json: {
        message: 'Validation Failed',
        errors: [{ resource: 'Label', code: 'already_exists', field: 'name' }],
      },
    });
  });
});

describe('permissions', () => {
  it('reports coarse permission and precise role for each kind of user', async () => {
    const { emulator } = clockedEmulator();
    emulator.setPermission('maint', 'maintain');
    emulator.setPermission('tri', 'triage');
    emulator.addIssue({ title: 't', author: 'outsider' });
    const permission = async (login: string) => {
      const answer = await call<{ permission: string; role_name: string }>(
        emulator,
        'GET',
        `${REPO}/collaborators/${login}/permission`,
      );
      return answer.status === 200 ? [answer.json.permission, answer.json.role_name] : answer.status;
    };
    expect(await permission('issueloop-bot')).toEqual(['write', 'write']);
    expect(await permission('maint')).toEqual(['write', 'maintain']);
    expect(await permission('tri')).toEqual(['read', 'triage']);
    expect(await permission('outsider')).toEqual(['read', 'read']);
    expect(await permission('nobody')).toBe(404);
  });

  it('gives no permission on a private repository to users without one', async () => {
    const { emulator } = clockedEmulator({ private: true });
    emulator.addUser('outsider');
    const answer = await call<{ permission: string }>(
      emulator,
      'GET',
      `${REPO}/collaborators/outsider/permission`,
    );
    expect(answer.json.permission).toBe('none');
    const repo = await octokit(emulator).rest.repos.get({ owner: 'octo-org', repo: 'widgets' });
    expect(repo.data).toMatchObject({
      private: true,
      full_name: 'octo-org/widgets',
      default_branch: 'main',
      owner: { login: 'octo-org', type: 'Organization' },
      permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    });
  });

  it('answers /user for user tokens and refuses it to installation tokens', async () => {
    const { emulator } = clockedEmulator();
    emulator.addToken('ghs_install', { login: 'issueloop[bot]', kind: 'installation' });
    const me = await call(emulator, 'GET', '/user');
    expect(me.json).toMatchObject({ login: 'issueloop-bot', id: 1, type: 'User' });
    const app = await call(emulator, 'GET', '/user', { headers: { authorization: 'token ghs_install' } });
    expect(app).toMatchObject({ status: 403, json: { message: 'Resource not accessible by integration' } });
    expect(app.headers.get('x-oauth-scopes')).toBeNull();
    expect(me.headers.get('x-oauth-scopes')).toBe('repo, project');
  });
});

describe('pull requests', () => {
  it('creates a draft PR, refuses a second open one for the same head, and finds it by head', async () => {
    const { emulator } = clockedEmulator();
    const issue = emulator.addIssue({ title: 't', author: 'alice' });
    const gh = octokit(emulator);
    const params = {
      owner: 'octo-org',
      repo: 'widgets',
      head: 'issueloop/1-fix',
      base: 'main',
      title: 'Fix',
      draft: true,
    };
    const created = await gh.rest.pulls.create({ ...params, body: `Closes #${issue}` });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      number: issue + 1,
      draft: true,
      state: 'open',
      head: { ref: 'issueloop/1-fix', label: 'octo-org:issueloop/1-fix' },
      base: { ref: 'main' },
      user: { login: 'issueloop-bot' },
    });
    expect(created.data.node_id).toMatch(/^PR_/);

    const duplicate = await call(emulator, 'POST', `${REPO}/pulls`, {
      body: { ...params, head: 'octo-org:issueloop/1-fix' },
    });
    expect(duplicate).toMatchObject({
      status: 422,
      json: {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'PullRequest',
            code: 'custom',
            message: 'A pull request already exists for octo-org:issueloop/1-fix.',
          },
        ],
      },
    });

    const byHead = await gh.rest.pulls.list({
      owner: 'octo-org',
      repo: 'widgets',
      head: 'octo-org:issueloop/1-fix',
    });
    expect(byHead.data.map((p) => p.number)).toEqual([created.data.number]);
    const otherHead = await gh.rest.pulls.list({
      owner: 'octo-org',
      repo: 'widgets',
      head: 'octo-org:other',
    });
    expect(otherHead.data).toEqual([]);
    expect(emulator.pulls()).toHaveLength(1);
  });

  it('updates a PR, and a closed PR no longer blocks its head', async () => {
    const { emulator } = clockedEmulator();
    const gh = octokit(emulator);
    const base = { owner: 'octo-org', repo: 'widgets' };
    const created = await gh.rest.pulls.create({ ...base, head: 'b', base: 'main', title: 'one' });
    const updated = await gh.rest.pulls.update({
      ...base,
      pull_number: created.data.number,
      body: 'new body',
      state: 'closed',
    });
    expect(updated.data).toMatchObject({ body: 'new body', state: 'closed', title: 'one' });
    expect((await gh.rest.pulls.get({ ...base, pull_number: created.data.number })).data.state).toBe(
      'closed',
    );
    const again = await gh.rest.pulls.create({ ...base, head: 'b', base: 'main', title: 'two' });
    expect(again.data.number).toBe(created.data.number + 1);
    expect((await call(emulator, 'GET', `${REPO}/pulls?state=all`)).json).toHaveLength(2);
    const plain = emulator.addIssue({ title: 'plain', author: 'a' });
    expect((await call(emulator, 'GET', `${REPO}/pulls/${plain}`)).status).toBe(404);
  });
});

describe('issue updates', () => {
  it('closes and reopens an issue, recording events and state_reason', async () => {
    const { emulator } = clockedEmulator();
    const n = emulator.addIssue({ title: 't', author: 'alice' });
    const closed = await call(emulator, 'PATCH', `${REPO}/issues/${n}`, {
      body: { state: 'closed', title: 'T' },
    });
    expect(closed.json).toMatchObject({ state: 'closed', state_reason: 'completed', title: 'T' });
    await call(emulator, 'PATCH', `${REPO}/issues/${n}`, { body: { state: 'open' } });
    expect(emulator.issue(n)).toMatchObject({ state: 'open', state_reason: 'reopened', closed_at: null });
    const events = await call<Array<{ event: string }>>(emulator, 'GET', `${REPO}/issues/${n}/events`);
    // The new title is a `renamed` event, as on GitHub.
    expect(events.json.map((e) => e.event)).toEqual(['renamed', 'closed', 'reopened']);
  });
});
