import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { UsageError } from '../../src/core/errors.js';
import { createRedactor } from '../../src/core/redact.js';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { appConfigured, appCredentials, readAppPrivateKey, tokenSourceFor } from '../../src/run/app-token.js';
import { secretsFromEnv } from '../../src/run/secrets.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { APP_ID, installedApp } from '../helpers/github-app.js';

const BASE = 'https://api.github.test';
let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-app-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function input(env: Record<string, string>, app?: Record<string, unknown>) {
  const clock = new FakeClock();
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
  const redact = createRedactor([]);
  const config = ConfigSchema.parse({ repo: 'octo-org/widgets', ...(app ? { github: { app } } : {}) });
  return {
    emulator,
    redact,
    source: {
      env,
      config,
      cwd: dir,
      repo: { owner: 'octo-org', name: 'widgets' },
      apiUrl: BASE,
      userAgent: 'issueloop/test',
      fetch: emulator.fetch,
      clock,
      redact,
    },
  };
}

describe('ISSUELOOP_APP_PRIVATE_KEY', () => {
  it('takes PEM text, a single line with \\n escapes, or a path to a PEM file', async () => {
    const { privateKeyPem } = installedApp(createGitHubEmulator());
    await writeFile(join(dir, 'app.pem'), privateKeyPem);
    expect(readAppPrivateKey(privateKeyPem, dir)).toBe(privateKeyPem.trim());
    expect(readAppPrivateKey(privateKeyPem.trim().replace(/\n/g, '\\n'), dir)).toBe(privateKeyPem.trim());
    expect(readAppPrivateKey('app.pem', dir)).toBe(privateKeyPem);
  });

  it('refuses a missing file and a text that is no key, without printing it (exit 2)', () => {
    expect(() => readAppPrivateKey('missing.pem', dir)).toThrow(
      /neither a PEM private key nor a readable file/,
    );
    const garbage = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0LXNlY3JldA==\n-----END PRIVATE KEY-----';
    let error: unknown;
    try {
      readAppPrivateKey(garbage, dir);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/does not hold a PEM private key/);
    expect((error as Error).message).not.toContain('c2VjcmV0');
  });
});

describe('the App key in the environment', () => {
  it('regression: a PEM private key is redacted by its shape, whole, escaped or cut short (learnt line by line, it slowed every redaction to seconds)', () => {
    const { privateKeyPem } = installedApp(createGitHubEmulator());
    const escaped = privateKeyPem.trim().replace(/\n/g, '\\n');
    const cut = privateKeyPem.split('\n').slice(0, 6).join('\n');
    const redact = createRedactor(secretsFromEnv({ ISSUELOOP_APP_PRIVATE_KEY: escaped }));
    for (const text of [privateKeyPem, escaped, cut]) {
      const out = redact(`leaked: ${text} and after`);
      expect(out).toMatch(/^leaked: \[REDACTED\]\s*and after$/);
    }
    const started = performance.now();
    redact(`a long message\n${'word '.repeat(2000)}`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(secretsFromEnv({ ISSUELOOP_APP_PRIVATE_KEY: 'keys/app.pem' })).toEqual([]);
  });
});

describe('tokenSourceFor', () => {
  it('leaves a run without an App on its fixed token', () => {
    expect(tokenSourceFor(input({ GITHUB_TOKEN: 'ghp_x' }).source)).toBeUndefined();
  });

  it('names what is missing when only the id or only the key is set', () => {
    expect(() => tokenSourceFor(input({ ISSUELOOP_APP_PRIVATE_KEY: 'app.pem' }).source)).toThrow(
      /ISSUELOOP_APP_PRIVATE_KEY is set but no App id: set ISSUELOOP_APP_ID/,
    );
    expect(() => tokenSourceFor(input({}, { id: APP_ID }).source)).toThrow(
      /github\.app\.id 4242\) but ISSUELOOP_APP_PRIVATE_KEY is not set/,
    );
  });

  it('mints with the App and teaches the redactor every token; the key goes by its shape', async () => {
    const world = input({}, { id: APP_ID });
    const { privateKeyPem } = installedApp(world.emulator);
    const env = { ISSUELOOP_APP_PRIVATE_KEY: privateKeyPem.trim().replace(/\n/g, '\\n') };
    const source = tokenSourceFor({ ...world.source, env });
    expect(source?.kind).toBe('app');
    const token = (await source?.token()) ?? '';
    expect(token).toMatch(/^ghs_/);
    // base64 hides the token's ghs_ shape from the patterns: only the learnt value finds it.
    const encoded = Buffer.from(token).toString('base64');
    const text = `token ${encoded} env ${env.ISSUELOOP_APP_PRIVATE_KEY} file ${privateKeyPem}`;
    expect(createRedactor([])(text)).toContain(encoded);
    const redacted = world.redact(text);
    expect(redacted).toContain('[REDACTED]');
    expect(redacted).not.toContain(encoded);
    for (const line of privateKeyPem.split('\n').slice(1, -2)) expect(redacted).not.toContain(line);
  });
});

describe('appCredentials and appConfigured (doctor and init find the App as run does)', () => {
  it('an App is configured by its id or its key; its credentials carry the id, the installation and the checked key', () => {
    const { privateKeyPem } = installedApp(createGitHubEmulator());
    const env = { ISSUELOOP_APP_PRIVATE_KEY: privateKeyPem };
    const withApp = input(env, { id: APP_ID, installation_id: 777 }).source;
    expect(appConfigured(env, withApp.config)).toBe(true);
    expect(appCredentials(withApp)).toEqual({
      id: APP_ID,
      installationId: 777,
      privateKey: privateKeyPem.trim(),
    });
    const plain = input({ GITHUB_TOKEN: 'ghp_x' }).source;
    expect(appConfigured(plain.env, plain.config)).toBe(false);
    expect(appCredentials(plain)).toBeUndefined();
    // A key alone counts as configured, so its missing id is reported rather than the key ignored.
    const keyOnly = input({ ISSUELOOP_APP_PRIVATE_KEY: 'app.pem' }).source;
    expect(appConfigured(keyOnly.env, keyOnly.config)).toBe(true);
    expect(() => appCredentials(keyOnly)).toThrow(/set but no App id/);
  });
});
