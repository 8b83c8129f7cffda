import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubChecks } from '../../src/cli/commands/doctor-github.js';
import type { Check } from '../../src/cli/commands/doctor-report.js';
import { classifyToken, GH_CLI_CLIENT_ID } from '../../src/cli/commands/doctor-token-kind.js';
import { ciCheck, type TokenPermissions } from '../../src/cli/commands/doctor-token-needs.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';

/**
 * `doctor` tells the token apart from GitHub's answers and says what issueloop needs of it, against
 * the emulator (in-process: its own fetch, no socket). Tokens are named after their kind, with the
 * documented prefix as GitHub issues them.
 */
const CLASSIC = `ghp_${'c'.repeat(36)}`;
const CLASSIC_WORKFLOW = `ghp_${'w'.repeat(36)}`;
const CLASSIC_NO_REPO = `ghp_${'n'.repeat(36)}`;
const FINE = `github_pat_${'f'.repeat(60)}`;
const ACTIONS = `ghs_${'a'.repeat(36)}`;
const APP = `ghs_${'p'.repeat(36)}`;
const GH = `gho_${'g'.repeat(36)}`;
const GHO_NO_CLIENT = `gho_${'o'.repeat(36)}`;
const READER = `ghp_${'r'.repeat(36)}`;

let dir: string;
let emulator: GitHubEmulator;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-doctor-token-'));
  emulator = createGitHubEmulator({ owner: 'acme', repo: 'widgets', private: true });
  emulator.addToken(CLASSIC, { login: 'maintainer', kind: 'classic', scopes: ['repo', 'project'] });
  emulator.addToken(CLASSIC_WORKFLOW, { login: 'maintainer', kind: 'classic', scopes: ['repo', 'workflow'] });
  emulator.addToken(CLASSIC_NO_REPO, { login: 'maintainer', kind: 'classic', scopes: ['gist'] });
  emulator.addToken(FINE, { login: 'dev', kind: 'fine-grained', expiresAt: '2027-01-31T00:00:00Z' });
  emulator.addToken(ACTIONS, { login: 'github-actions[bot]', kind: 'installation' });
  emulator.addToken(APP, { login: 'issueloop-app[bot]', kind: 'installation' });
  emulator.addToken(GH, {
    login: 'alice',
    kind: 'oauth',
    scopes: ['gist', 'read:org', 'repo'],
    clientId: GH_CLI_CLIENT_ID,
  });
  emulator.addToken(GHO_NO_CLIENT, { login: 'alice', kind: 'oauth', scopes: ['repo', 'workflow'] });
  emulator.addToken(READER, { login: 'reader', kind: 'classic', scopes: ['repo'] });
  for (const login of ['maintainer', 'dev', 'alice']) emulator.setPermission(login, 'write');
  emulator.setPermission('reader', 'read');
  emulator.addLabel('issueloop');
  const statusOptions = ['Todo', 'In Progress', 'In Review', 'Done', 'Needs human'];
  emulator.addProject({ title: 'Board', number: 3, statusOptions });
  emulator.addUser('dev');
  emulator.addProject({ title: 'Mine', number: 1, owner: 'dev', statusOptions });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function doctor(
  token: string,
  sets: string[] = [],
  permissions?: TokenPermissions,
): Promise<Map<string, Check>> {
  const env = { GITHUB_TOKEN: token, GITHUB_API_URL: emulator.baseUrl };
  const loaded = await loadConfig({ cwd: dir, env, sets: ['repo=acme/widgets', ...sets] });
  const checks = await githubChecks({
    env,
    cwd: dir,
    version: '0',
    loaded,
    fetch: emulator.fetch,
    ...(permissions ? { permissions } : {}),
  });
  return new Map(checks.map((c) => [c.name, c]));
}

const ORG_BOARD = ['project.owner=acme', 'project.number=3'];
const USER_BOARD = ['project.owner=dev', 'project.number=1'];
const WORKFLOWS_OPEN = ['protected_paths=["docs/**"]'];

describe('doctor tells the token apart', () => {
  it('a classic PAT: x-oauth-scopes on every answer; write access, CI, no workflow scope needed', async () => {
    const checks = await doctor(CLASSIC, ORG_BOARD);
    expect(checks.get('token kind')).toEqual({
      name: 'token kind',
      status: 'ok',
      detail: 'a classic personal access token of maintainer (scopes: repo, project)',
    });
    expect(checks.get('write access')).toMatchObject({
      status: 'ok',
      detail: 'the `repo` scope and write access to acme/widgets',
    });
    expect(checks.get('ci on its PRs')?.status).toBe('ok');
    expect(checks.get('workflows')).toMatchObject({
      status: 'ok',
      detail: 'protected_paths covers .github/workflows/: no workflow permission is needed',
    });
    expect(checks.get('project')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('"Board" (#3, organisation project)') as unknown,
    });
    // A user-owned board is reached by a classic PAT with `project`, and no other kind.
    expect((await doctor(CLASSIC, USER_BOARD)).get('project')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('"Mine" (#1, user project)') as unknown,
    });
  });

  it('a classic PAT with `workflow` while workflows are protected is told it has more than necessary', async () => {
    const checks = await doctor(CLASSIC_WORKFLOW);
    expect(checks.get('workflows')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining("the token's `workflow` scope gives more than necessary") as unknown,
    });
    const open = await doctor(CLASSIC_WORKFLOW, WORKFLOWS_OPEN);
    expect(open.get('workflows')).toMatchObject({
      status: 'ok',
      detail: 'the agent may change .github/workflows/, and the token has the `workflow` scope',
    });
  });

  it('a classic PAT without `repo` fails write access with the fix; one without the write role too', async () => {
    const noScope = await doctor(CLASSIC_NO_REPO);
    expect(noScope.get('token kind')?.detail).toContain('(scopes: gist)');
    expect(noScope.get('write access')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('lacks the `repo` scope') as unknown,
      fix: 'add the `repo` scope at https://github.com/settings/tokens',
    });
    const reader = await doctor(READER);
    expect(reader.get('repository')?.status).toBe('ok');
    expect(reader.get('write access')).toMatchObject({
      status: 'fail',
      detail: "acme/widgets is readable, but the token's account has no write access to it",
      fix: expect.stringContaining('ask an admin of acme/widgets for the write role') as unknown,
    });
  });

  it('a fine-grained PAT: no x-oauth-scopes, its expiry from github-authentication-token-expiration', async () => {
    const checks = await doctor(FINE, [...USER_BOARD, ...WORKFLOWS_OPEN]);
    expect(checks.get('token kind')).toMatchObject({
      status: 'ok',
      detail:
        'a fine-grained personal access token of dev (no x-oauth-scopes; GET /user answers); expires 2027-01-31 00:00:00 UTC',
    });
    expect(checks.get('write access')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(
        'it needs Contents, Issues and Pull requests: Read and write',
      ) as unknown,
    });
    expect(checks.get('workflows')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('protected_paths lets the agent change .github/workflows/') as unknown,
      fix: "give the token Workflows: Read and write, or keep '.github/workflows/**' in protected_paths",
    });
    expect(checks.get('project')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining(
        "dev's project is user-owned: only a classic personal access token with the `project` scope reaches it",
      ) as unknown,
    });
    expect(checks.get('project')?.fix).toContain('ISSUELOOP_PROJECTS_TOKEN');
  });

  it('newcomer: the Actions token is named, and doctor says CI will not run on its PRs and what to set', async () => {
    const checks = await doctor(ACTIONS, [...ORG_BOARD, ...WORKFLOWS_OPEN]);
    expect(checks.get('token kind')).toMatchObject({
      status: 'ok',
      detail: 'the GitHub Actions token (github-actions[bot], an installation of the github-actions app)',
    });
    expect(checks.get('ci on its PRs')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(
        'GitHub starts no workflow run for events the Actions token',
      ) as unknown,
      fix: expect.stringContaining('ISSUELOOP_APP_ID and ISSUELOOP_APP_PRIVATE_KEY') as unknown,
    });
    expect(checks.get('ci on its PRs')?.fix).toContain('app_id and app_private_key');
    expect(checks.get('write access')).toMatchObject({
      status: 'warn',
      fix: 'grant it in the workflow: `permissions: { contents: write, issues: write, pull-requests: write }`',
    });
    expect(checks.get('workflows')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('the Actions token cannot have the workflows permission') as unknown,
    });
    expect(checks.get('project')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('Resource not accessible by integration') as unknown,
      fix: expect.stringContaining('the Actions token cannot reach Projects v2') as unknown,
    });
  });

  it('regression: an installation token is not failed as read-only (GitHub reports push: false to it)', async () => {
    const checks = await doctor(ACTIONS);
    expect(checks.get('repository')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('reachable'),
    });
    expect(checks.get('write access')?.status).toBe('warn');
  });

  it('a GitHub App installation: its bot from GraphQL viewer; CI runs; its permissions judged when known', async () => {
    const checks = await doctor(APP, ORG_BOARD);
    expect(checks.get('token kind')?.detail).toBe(
      'a GitHub App installation token, acting as issueloop-app[bot]',
    );
    expect(checks.get('ci on its PRs')?.status).toBe('ok');
    expect(checks.get('project')).toMatchObject({
      status: 'fail',
      fix: expect.stringMatching(
        /^give the App the organisation permission Projects: Read and write in its settings .*accept the new permissions.* on acme$/,
      ) as unknown,
    });
    const minted = await doctor(APP, WORKFLOWS_OPEN, {
      contents: 'write',
      issues: 'write',
      pull_requests: 'read',
      workflows: 'write',
    });
    expect(minted.get('write access')).toMatchObject({
      status: 'fail',
      detail: "the App's token lacks write on pull_requests (pull_requests: read)",
    });
    expect(minted.get('workflows')).toMatchObject({
      status: 'ok',
      detail: 'the agent may change .github/workflows/, and the token has the Workflows permission',
    });
  });

  it("an OAuth token of `gh auth login`: gh's client id in x-oauth-client-id; fixes say `gh auth refresh`", async () => {
    const checks = await doctor(GH, [...ORG_BOARD, ...WORKFLOWS_OPEN]);
    expect(checks.get('token kind')?.detail).toBe(
      'an OAuth token of GitHub CLI (`gh auth login`) of alice (scopes: gist, read:org, repo)',
    );
    expect(checks.get('write access')?.status).toBe('ok');
    expect(checks.get('workflows')).toMatchObject({
      status: 'warn',
      fix: "`gh auth refresh -s workflow`, or keep '.github/workflows/**' in protected_paths",
    });
    expect(checks.get('project')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('INSUFFICIENT_SCOPES') as unknown,
      fix: '`gh auth refresh -s project`',
    });
  });

  it('without x-oauth-client-id, a gho_ token is "probably" from gh, and says why', async () => {
    const checks = await doctor(GHO_NO_CLIENT);
    expect(checks.get('token kind')?.detail).toBe(
      'probably an OAuth token from `gh auth login` of alice (the gho_ prefix; GitHub sent no x-oauth-client-id) (scopes: repo, workflow)',
    );
  });

  it('an installation token whose bot GitHub did not name: CI is in doubt, and doctor says so', () => {
    const kind = classifyToken({
      userStatus: 403,
      userMessage: 'Resource not accessible by integration',
      prefix: 'ghs_',
    });
    expect(kind).toEqual({ kind: 'installation', probable: false });
    expect(ciCheck(kind)).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('if it is the Actions token') as unknown,
      fix: expect.stringContaining('a GitHub App') as unknown,
    });
    // The prefix alone never decides: a ghp_ token that GET /user refuses as an integration is one.
    expect(
      classifyToken({
        userStatus: 403,
        userMessage: 'Resource not accessible by integration',
        prefix: 'ghp_',
      }).kind,
    ).toBe('installation');
    expect(classifyToken({ userStatus: 200, login: 'x', prefix: 'ghp_' }).kind).toBe('fine-grained');
  });
});
