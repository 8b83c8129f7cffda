import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configCopy, LOGIN_FILE } from '../../../src/engines/claude-code/config-copy.js';
import {
  findModelCredential,
  modelUrlFor,
  openModelAccess,
  PLACEHOLDER_PREFIXES,
  QUIET_CLI,
} from '../../../src/engines/claude-code/model-access.js';
import { MODEL_PORT } from '../../../src/sandbox/domain-proxy.js';
import { UNSANDBOXED } from '../../../src/sandbox/sandbox.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function home(files: Record<string, unknown> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-access-'));
  dirs.push(dir);
  await mkdir(join(dir, '.claude'));
  for (const [name, value] of Object.entries(files)) await writeFile(join(dir, name), JSON.stringify(value));
  return dir;
}

describe('findModelCredential', () => {
  it("takes the environment first, in Claude Code's order, then the key it approved, then its login", async () => {
    const HOME = await home({
      '.claude.json': { primaryApiKey: 'sk-approved' },
      '.claude/.credentials.json': { claudeAiOauth: { accessToken: 'sk-ant-oat01-login' } },
    });
    expect(await findModelCredential({ HOME, ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 'g' })).toEqual({
      name: 'ANTHROPIC_AUTH_TOKEN',
      value: 'g',
    });
    expect(await findModelCredential({ HOME, CLAUDE_CODE_OAUTH_TOKEN: 'o', ANTHROPIC_API_KEY: 'k' })).toEqual(
      {
        name: 'ANTHROPIC_API_KEY',
        value: 'k',
      },
    );
    expect(await findModelCredential({ HOME })).toEqual({ name: 'ANTHROPIC_API_KEY', value: 'sk-approved' });
    const loginOnly = await home({
      '.claude/.credentials.json': { claudeAiOauth: { accessToken: 'sk-ant-oat01-login' } },
    });
    expect(await findModelCredential({ HOME: loginOnly })).toEqual({
      name: 'CLAUDE_CODE_OAUTH_TOKEN',
      value: 'sk-ant-oat01-login',
    });
    expect(await findModelCredential({ HOME: await home() })).toBeUndefined();
    // A stored login past its expiry is not held: the proxy cannot refresh it.
    const expiring = await home({
      '.claude/.credentials.json': { claudeAiOauth: { accessToken: 'sk-ant-oat01-old', expiresAt: 1_000 } },
    });
    expect(await findModelCredential({ HOME: expiring }, 999)).toMatchObject({ value: 'sk-ant-oat01-old' });
    expect(await findModelCredential({ HOME: expiring }, 1_000)).toBeUndefined();
  });
});

describe('openModelAccess', () => {
  it("gives claude the proxy's address, a placeholder and the quiet switches; nothing without a credential", async () => {
    expect(await openModelAccess({ env: { HOME: await home() }, prices: {}, tcp: true })).toBeUndefined();
    const access = await openModelAccess({
      env: { HOME: await home(), CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-real', NO_PROXY: 'corp.example' },
      prices: {},
      tcp: true,
    });
    try {
      const env = access?.env(UNSANDBOXED) ?? {};
      expect(env).toMatchObject({ ...QUIET_CLI, CLAUDE_CODE_OAUTH_TOKEN: access?.placeholder });
      expect(access?.placeholder).toMatch(
        new RegExp(`^${PLACEHOLDER_PREFIXES.CLAUDE_CODE_OAUTH_TOKEN}[0-9a-f]{32}$`),
      );
      expect(env.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(env.NO_PROXY).toBe('corp.example,127.0.0.1,localhost');
      expect(JSON.stringify(env)).not.toContain('sk-ant-oat01-real');
      expect(access?.spent()).toMatchObject({ costUsd: 0, responses: 0 });
    } finally {
      await access?.close();
    }
  });

  it('points a bubblewrapped claude at the bridge inside its sandbox', () => {
    expect(modelUrlFor({ ...UNSANDBOXED, kind: 'bwrap' }, {})).toBe(`http://127.0.0.1:${MODEL_PORT}`);
    expect(modelUrlFor(UNSANDBOXED, { url: 'http://127.0.0.1:4321' })).toBe('http://127.0.0.1:4321');
    expect(() => modelUrlFor(UNSANDBOXED, {})).toThrow(/no loopback listener/);
  });
});

describe('configCopy', () => {
  it('never copies the login file', () => {
    expect(configCopy(LOGIN_FILE, '{"claudeAiOauth":{}}', [])).toBeUndefined();
  });

  it('drops keys that hold or make a credential, and env entries that reroute or log in, at any depth', () => {
    const text = JSON.stringify({
      model: 'sonnet',
      primaryApiKey: 'sk-1',
      apiKeyHelper: 'echo sk-2',
      oauthAccount: { emailAddress: 'a@b' },
      customApiKeyResponses: { approved: ['abc'] },
      env: { ANTHROPIC_BASE_URL: 'http://evil', ANTHROPIC_API_KEY: 'sk-3', BASH_DEFAULT_TIMEOUT_MS: '5000' },
      mcpServers: { gh: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'ghp_1', LOG: '1' } } },
      permissions: { allow: ['Bash'] },
    });
    expect(JSON.parse(configCopy('settings.json', text, []) ?? '')).toEqual({
      model: 'sonnet',
      env: { BASH_DEFAULT_TIMEOUT_MS: '5000' },
      mcpServers: { gh: { command: 'gh-mcp', env: { LOG: '1' } } },
      permissions: { allow: ['Bash'] },
    });
  });

  it('leaves out any file that still holds a credential, JSON or not', () => {
    expect(
      configCopy('CLAUDE.md', 'use key sk-ant-api03-real-123456', ['sk-ant-api03-real-123456']),
    ).toBeUndefined();
    expect(
      configCopy('settings.json', '{"note":"sk-ant-api03-real-123456"}', ['sk-ant-api03-real-123456']),
    ).toBeUndefined();
    expect(configCopy('CLAUDE.md', '# notes\n', ['sk-ant-api03-real-123456'])).toBe('# notes\n');
  });
});
