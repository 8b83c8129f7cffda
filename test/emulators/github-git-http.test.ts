import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { basicToken } from '../../src/emulators/github/git-http.js';
import {
  createGitHubEmulator,
  DEFAULT_TOKEN,
  type GitHubEmulator,
} from '../../src/emulators/github/index.js';
import type { ListeningEmulator } from '../../src/emulators/github/types.js';
import { APP_ID, INSTALLATION_ID, installedApp, signJwt } from '../helpers/github-app.js';
import { type OriginRepo, originRepo } from './origin-repo.js';

const execFileAsync = promisify(execFile);

const READER = 'ghs_readOnlyInstallationToken';
const REVOKED = 'ghs_revokedBeforeTheRequest';
/** Live for its first minute on the emulator's clock, then past its `expires_at` (an installation token's hour, shortened). */
const EXPIRED = 'ghs_pastItsExpiresAt0123456789';
const EXPIRES_AT = Date.parse('2030-01-01T00:01:00Z');

let repo: OriginRepo;
let emulator: GitHubEmulator;
let server: ListeningEmulator;
let work: string;
/** The emulator's clock: a token's expiry is judged by it, as REST's is. */
let clock = Date.parse('2030-01-01T00:00:00Z');

beforeAll(async () => {
  repo = await originRepo({ 'README.md': 'hello\n' });
  emulator = createGitHubEmulator({ origin: repo.origin, now: () => clock });
  emulator.addToken(READER, { login: 'reader-bot[bot]', kind: 'installation' });
  emulator.setPermission('reader-bot[bot]', 'read');
  emulator.addToken(REVOKED, { login: 'issueloop-bot', kind: 'installation' });
  emulator.revokeToken(REVOKED);
  emulator.addToken(EXPIRED, {
    login: 'issueloop-bot',
    kind: 'installation',
    expiresAt: new Date(EXPIRES_AT).toISOString(),
  });
  server = await emulator.serveGit();
  work = await mkdtemp(join(tmpdir(), 'git-http-'));
});

afterAll(async () => {
  await server?.close();
  await repo?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

beforeEach(() => {
  emulator.gitRequests.length = 0;
  // Past EXPIRED's expires_at: each test starts on the far side of it.
  clock = EXPIRES_AT + 1;
});

/** Git with nothing from the machine's config, never prompting; the token (if any) as GitHub takes it. */
async function git(cwd: string, token: string | undefined, ...args: string[]) {
  const auth = token
    ? [
        '-c',
        `http.extraheader=AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
      ]
    : [];
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: work,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    GIT_AUTHOR_NAME: 'Octo Cat',
    GIT_AUTHOR_EMAIL: 'octocat@example.com',
    GIT_COMMITTER_NAME: 'Octo Cat',
    GIT_COMMITTER_EMAIL: 'octocat@example.com',
  };
  try {
    const { stdout, stderr } = await execFileAsync('git', [...auth, ...args], { cwd, env });
    return { ok: true, stdout: stdout.trim(), stderr };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { ok: false, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function clone(name: string): Promise<string> {
  const dir = join(work, name);
  const cloned = await git(work, DEFAULT_TOKEN, 'clone', '--quiet', server.url, dir);
  expect(cloned.stderr).toBe('');
  return dir;
}

describe("the emulator's git over HTTP", () => {
  it('serves clone, fetch and push to the holder of a token it takes, logging the token of each request', async () => {
    const dir = await clone('good');
    expect((await git(dir, undefined, 'rev-parse', 'HEAD')).stdout).toBe(
      await repo.bare('rev-parse', 'main'),
    );

    await git(dir, undefined, 'commit', '--quiet', '--allow-empty', '-m', 'over http');
    const pushed = await git(dir, DEFAULT_TOKEN, 'push', '--quiet', server.url, 'HEAD:refs/heads/feature');
    expect(pushed).toMatchObject({ ok: true });
    expect(await repo.bare('rev-parse', 'feature')).toBe(
      (await git(dir, undefined, 'rev-parse', 'HEAD')).stdout,
    );
    const fetched = await git(dir, DEFAULT_TOKEN, 'fetch', '--quiet', server.url, 'feature');
    expect(fetched).toMatchObject({ ok: true });

    const services = emulator.gitRequests.map((r) => `${r.method} ${r.service} ${r.status} ${r.token}`);
    expect(services).toContain(`GET git-upload-pack 200 ${DEFAULT_TOKEN}`);
    expect(services).toContain(`POST git-receive-pack 200 ${DEFAULT_TOKEN}`);
    expect(emulator.gitRequests.every((r) => r.token === DEFAULT_TOKEN && r.login === 'issueloop-bot')).toBe(
      true,
    );
  });

  it.each([
    ['no token', undefined],
    ['an unknown token', 'ghp_neverIssuedByThisGitHub'],
    ['a revoked token', REVOKED],
    ['a token past its expires_at', EXPIRED],
  ])("refuses %s with 401 and GitHub's Basic challenge", async (_name, token) => {
    const refused = await git(work, token, 'ls-remote', server.url);
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/could not read Username|Authentication failed/);
    expect(emulator.gitRequests.at(-1)).toMatchObject({ status: 401, token });

    const answer = await fetch(`${server.url}/info/refs?service=git-upload-pack`, {
      headers: token
        ? { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}` }
        : {},
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Basic realm="GitHub"');
    await answer.body?.cancel();
  });

  it('takes a token with an expires_at until that moment on its clock, and refuses it from then on, as REST does', async () => {
    clock = EXPIRES_AT - 1;
    const before = await git(work, EXPIRED, 'ls-remote', server.url);
    expect(before).toMatchObject({ ok: true });
    expect(before.stdout).toContain('refs/heads/main');
    expect(emulator.gitRequests.at(-1)).toMatchObject({
      status: 200,
      token: EXPIRED,
      login: 'issueloop-bot',
    });

    clock = EXPIRES_AT;
    const after = await git(work, EXPIRED, 'ls-remote', server.url);
    expect(after.ok).toBe(false);
    expect(emulator.gitRequests.at(-1)).toMatchObject({ status: 401, token: EXPIRED });
    const rest = await emulator.fetch(`${emulator.baseUrl}/repos/octo-org/widgets/issues`, {
      headers: { authorization: `token ${EXPIRED}` },
    });
    expect(rest.status).toBe(401);
  });

  it('refuses a revoked token on REST as well: 401 Bad credentials where it answered before', async () => {
    const token = 'ghs_revokedAfterOneCall0123456789';
    emulator.addToken(token, { login: 'issueloop-bot', kind: 'installation' });
    const user = () =>
      emulator.fetch(`${emulator.baseUrl}/repos/octo-org/widgets/issues`, {
        headers: { authorization: `token ${token}` },
      });
    expect((await user()).status).toBe(200);
    emulator.revokeToken(token);
    const refused = await user();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ message: 'Bad credentials' });
  });

  it('leaves the branch unmoved when it refuses a push', async () => {
    const dir = await clone('refused');
    const before = await repo.bare('rev-parse', 'main');
    await git(dir, undefined, 'commit', '--quiet', '--allow-empty', '-m', 'never lands');
    const unknown = await git(dir, 'ghp_neverIssuedByThisGitHub', 'push', server.url, 'HEAD:refs/heads/main');
    expect(unknown.ok).toBe(false);
    const reader = await git(dir, READER, 'push', server.url, 'HEAD:refs/heads/main');
    expect(reader.ok).toBe(false);
    expect(reader.stderr).toMatch(/403/);
    expect(emulator.gitRequests.map((r) => r.status)).toEqual(expect.arrayContaining([401, 403]));
    expect(await repo.bare('rev-parse', 'main')).toBe(before);
  });

  it("lets an App's installation token push by its contents permission, though its bot is no collaborator (the bug: every App push refused 403)", async () => {
    const writer = installedApp(emulator);
    const reader = installedApp(emulator, {
      id: 5151,
      clientId: 'Iv23liReadOnlyApp',
      slug: 'read-only-app',
      installations: [{ id: 778, account: 'octo-org' }],
      permissions: { contents: 'read', metadata: 'read' },
    });
    const mint = async (app: typeof writer, iss: number, installation: number) => {
      const iat = Math.floor(clock / 1000) - 30;
      const jwt = signJwt(app.privateKeyPem, { iat, exp: iat + 540, iss });
      const answer = await emulator.fetch(
        `${emulator.baseUrl}/app/installations/${installation}/access_tokens`,
        { method: 'POST', headers: { authorization: `Bearer ${jwt}` } },
      );
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { token: string }).token;
    };
    const dir = await clone('app');
    await git(dir, undefined, 'commit', '--quiet', '--allow-empty', '-m', 'by the App');
    const head = (await git(dir, undefined, 'rev-parse', 'HEAD')).stdout;

    const readOnly = await mint(reader, 5151, 778);
    const refused = await git(dir, readOnly, 'push', server.url, 'HEAD:refs/heads/app-branch');
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/403/);
    expect(emulator.gitRequests.at(-1)).toMatchObject({ status: 403, login: 'read-only-app[bot]' });

    const token = await mint(writer, APP_ID, INSTALLATION_ID);
    const pushed = await git(dir, token, 'push', '--quiet', server.url, 'HEAD:refs/heads/app-branch');
    expect(pushed).toMatchObject({ ok: true });
    expect(await repo.bare('rev-parse', 'app-branch')).toBe(head);
    expect(emulator.gitRequests.at(-1)).toMatchObject({
      service: 'git-receive-pack',
      status: 200,
      login: 'issueloop-test[bot]',
    });
  });

  it('answers 404 for another repository, as GitHub does', async () => {
    const other = server.url.replace(/widgets\.git$/, 'gadgets.git');
    const refused = await git(work, DEFAULT_TOKEN, 'ls-remote', other);
    expect(refused.ok).toBe(false);
    expect(emulator.gitRequests.at(-1)).toMatchObject({ status: 404, token: DEFAULT_TOKEN });
    expect((await git(work, DEFAULT_TOKEN, 'ls-remote', server.url)).stdout).toContain('refs/heads/main');
  });
});

describe('serveGit without origin', () => {
  it('is refused with the option to pass', async () => {
    await expect(createGitHubEmulator().serveGit()).rejects.toThrow(/pass the `origin` option/);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/octo-org\/widgets\.git$/);
  });
});

describe('basicToken', () => {
  it('takes the password of a basic credential as the token, whatever the user', () => {
    const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
    expect(basicToken(basic('x-access-token:ghs_abc'))).toBe('ghs_abc');
    expect(basicToken(basic('someone:ghp_xyz'))).toBe('ghp_xyz');
    expect(basicToken(basic('x-access-token:'))).toBeUndefined();
    expect(basicToken('token ghp_xyz')).toBeUndefined();
    expect(basicToken(undefined)).toBeUndefined();
  });
});
