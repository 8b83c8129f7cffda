import { describe, expect, it } from 'vitest';
import { call, clockedEmulator, DOCUMENTS, graphql, REPO } from './emulator-fixtures.js';

/** What GitHub tells about a token on its answers, per kind: the headers `doctor` reads. */
const auth = (token: string) => ({ headers: { authorization: `token ${token}` } });

describe('token kinds in the emulator', () => {
  it("an OAuth token (gh's) carries x-oauth-scopes and x-oauth-client-id; a classic PAT no client id", async () => {
    const { emulator } = clockedEmulator();
    emulator.addToken('gho_cli', {
      login: 'alice',
      kind: 'oauth',
      scopes: ['gist', 'read:org', 'repo'],
      clientId: '178c6fc778ccc68e1d6a',
    });
    const gh = await call(emulator, 'GET', '/user', auth('gho_cli'));
    expect(gh.status).toBe(200);
    expect(gh.headers.get('x-oauth-scopes')).toBe('gist, read:org, repo');
    expect(gh.headers.get('x-oauth-client-id')).toBe('178c6fc778ccc68e1d6a');
    const classic = await call(emulator, 'GET', '/user');
    expect(classic.headers.get('x-oauth-scopes')).toBe('repo, project');
    expect(classic.headers.get('x-oauth-client-id')).toBeNull();
  });

  it('an OAuth token is held to its scopes in GraphQL, as a classic one is', async () => {
    const { emulator } = clockedEmulator();
    emulator.addProject({ title: 'Board', number: 7 });
    emulator.addToken('gho_noproject', { login: 'alice', kind: 'oauth', scopes: ['repo'] });
    const vars = { owner: 'octo-org', number: 7, field: 'Status' };
    const refused = await graphql(emulator, DOCUMENTS.ResolveProject, vars, 'gho_noproject');
    expect(refused.json).toMatchObject({ errors: [{ type: 'INSUFFICIENT_SCOPES' }] });
    const allowed = await graphql(emulator, DOCUMENTS.ResolveProject, vars);
    expect(allowed.json).not.toHaveProperty('errors');
  });

  it('a PAT that expires says when in github-authentication-token-expiration, without x-oauth-scopes', async () => {
    const { emulator } = clockedEmulator();
    emulator.addToken('github_pat_x', {
      login: 'dev',
      kind: 'fine-grained',
      expiresAt: '2027-01-31T08:00:00Z',
    });
    const answer = await call(emulator, 'GET', '/user', auth('github_pat_x'));
    expect(answer.json).toMatchObject({ login: 'dev' });
    expect(answer.headers.get('github-authentication-token-expiration')).toBe('2027-01-31 08:00:00 UTC');
    expect(answer.headers.get('x-oauth-scopes')).toBeNull();
  });

  it("an installation token's viewer is its bot, and GET /repos reports it no permissions", async () => {
    const { emulator } = clockedEmulator();
    emulator.addToken('ghs_actions', { login: 'github-actions[bot]', kind: 'installation' });
    emulator.setPermission('github-actions[bot]', 'write');
    const viewer = await graphql(emulator, 'query { viewer { login } }', {}, 'ghs_actions');
    expect(viewer.json).toEqual({ data: { viewer: { login: 'github-actions[bot]' } } });
    const repo = await call<{ permissions: Record<string, boolean> }>(
      emulator,
      'GET',
      REPO,
      auth('ghs_actions'),
    );
    expect(repo.status).toBe(200);
    expect(repo.json.permissions).toEqual({
      admin: false,
      maintain: false,
      push: false,
      triage: false,
      pull: false,
    });
    const user = await call<{ permissions: Record<string, boolean> }>(emulator, 'GET', REPO);
    expect(user.json.permissions.push).toBe(true);
  });

  it('a fine-grained token reaches an organisation project but not a user-owned one', async () => {
    const { emulator } = clockedEmulator();
    emulator.addToken('github_pat_x', { login: 'dev', kind: 'fine-grained' });
    emulator.addUser('dev');
    emulator.addProject({ title: 'Mine', number: 1, owner: 'dev' });
    emulator.addProject({ title: 'Ours', number: 2 });
    const field = 'Status';
    const mine = await graphql(
      emulator,
      DOCUMENTS.ResolveProject,
      { owner: 'dev', number: 1, field },
      'github_pat_x',
    );
    expect(mine.json).toMatchObject({
      data: { repositoryOwner: { __typename: 'User', projectV2: null } },
      errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible by personal access token' }],
    });
    const ours = await graphql(
      emulator,
      DOCUMENTS.ResolveProject,
      { owner: 'octo-org', number: 2, field },
      'github_pat_x',
    );
    expect(ours.json).toMatchObject({ data: { repositoryOwner: { projectV2: { title: 'Ours' } } } });
    expect(ours.json).not.toHaveProperty('errors');
  });
});
