import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_KEY_ENV, GitHubSchema } from '../../src/config/github-schema.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConfigError } from '../../src/core/errors.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-app-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('github.app in the configuration', () => {
  it('takes an App id or a client id, and an optional installation id', () => {
    expect(GitHubSchema.parse({ app: { id: 4242, installation_id: 7 } }).app).toEqual({
      id: 4242,
      installation_id: 7,
    });
    expect(GitHubSchema.parse({ app: { id: 'Iv23liAbc' } }).app?.id).toBe('Iv23liAbc');
    expect(GitHubSchema.parse({ app: { id: '4242' } }).app?.id).toBe(4242);
    expect(GitHubSchema.safeParse({ app: { id: 'my-app' } }).success).toBe(false);
  });

  it('is set by ISSUELOOP_APP_ID and ISSUELOOP_APP_INSTALLATION_ID over the file', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), 'github:\n  app:\n    id: 1\n');
    const env = { ISSUELOOP_APP_ID: '4242', ISSUELOOP_APP_INSTALLATION_ID: '77', [APP_KEY_ENV]: 'key.pem' };
    const { config } = await loadConfig({ cwd: dir, env });
    expect(config.github.app).toMatchObject({ id: 4242, installation_id: 77 });
    expect((await loadConfig({ cwd: dir, env: {} })).config.github.app?.id).toBe(1);
  });

  it('refuses a private key in the config, saying to use ISSUELOOP_APP_PRIVATE_KEY', async () => {
    await writeFile(
      join(dir, 'issueloop.config.yaml'),
      'github:\n  app:\n    id: 1\n    private_key: "-----BEGIN PRIVATE KEY-----"\n',
    );
    const error = await loadConfig({ cwd: dir, env: {} }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /github\.app\.private_key: the App's private key is a credential, not a setting: .* ISSUELOOP_APP_PRIVATE_KEY/,
    );
    expect((error as Error).message).not.toContain('BEGIN PRIVATE KEY');
  });
});

describe('github.write_spacing', () => {
  it('is a second by default, 0s turns the pacing off, and more than a minute is refused naming the field', () => {
    expect(ConfigSchema.parse({}).github.write_spacing).toBe(1000);
    expect(ConfigSchema.parse({ github: { write_spacing: '0s' } }).github.write_spacing).toBe(0);
    const refused = ConfigSchema.safeParse({ github: { write_spacing: '2m' } });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues).toEqual([
      expect.objectContaining({
        path: ['github', 'write_spacing'],
        message: expect.stringMatching(/between 0s and 1m/),
      }),
    ]);
  });
});

describe('github.app.installation_id', () => {
  it('newcomer: a word for the installation id says what the id is and where to find it (it said only "expected number")', () => {
    const refused = ConfigSchema.safeParse({ github: { app: { id: 1, installation_id: 'x' } } });
    expect(refused.error?.issues).toEqual([
      expect.objectContaining({
        path: ['github', 'app', 'installation_id'],
        message: expect.stringMatching(
          /^expected the installation id, a number \(in the URL of the App's installation/,
        ),
      }),
    ]);
  });
});
