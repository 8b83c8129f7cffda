import { describe, expect, it } from 'vitest';
import {
  SECRET_ENV_NAMES,
  SECRET_NAME_PATTERNS,
  scrubEnv,
  secretValues,
} from '../../../src/agent/tools/scrub-env.js';
import { findSecrets } from '../../../src/session/secret-scan.js';

describe('scrubEnv', () => {
  it('drops the named credentials and the ssh agent socket', () => {
    const env = Object.fromEntries(SECRET_ENV_NAMES.map((name) => [name, 'x']));
    expect(scrubEnv(env)).toEqual({ GIT_TERMINAL_PROMPT: '0' });
    expect(SECRET_ENV_NAMES).toContain('SSH_AUTH_SOCK');
    // The Redis claim store's URL matches no pattern but may carry a password.
    expect(scrubEnv({ ISSUELOOP_CLAIMS__REDIS_URL: 'redis://u:p@cache:6379' })).toEqual({
      GIT_TERMINAL_PROMPT: '0',
    });
  });

  it('drops every name containing a secret pattern, whatever its case', () => {
    const scrubbed = scrubEnv({
      MY_API_KEY: '1',
      npm_config__authToken: '2',
      AWS_SECRET_ACCESS_KEY: '3',
      DB_Password: '4',
      GOOGLE_APPLICATION_CREDENTIALS: '5',
      keychain: '6',
      HOME: '/home/me',
    });
    expect(scrubbed).toEqual({ HOME: '/home/me', GIT_TERMINAL_PROMPT: '0' });
    expect(SECRET_NAME_PATTERNS).toEqual(['TOKEN', 'SECRET', 'KEY', 'PASSWORD', 'CREDENTIAL']);
  });

  it('regression: drops secrets the name patterns missed (whole-word PAT, AUTH, DSN, WEBHOOK…) and any URL with a password, keeping PATH', () => {
    const env = scrubEnv({
      PATH: '/usr/bin',
      PWD: '/work',
      GITHUB_PAT: 'a',
      GH_PAT: 'b',
      NPM_CONFIG__AUTH: 'c',
      SENTRY_DSN: 'd',
      SLACK_WEBHOOK_URL: 'e',
      DB_PASS: 'f',
      DATABASE_URL: 'postgres://app:hunter2@db.internal/app',
      HOMEPAGE_URL: 'https://example.com/path',
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      PWD: '/work',
      HOMEPAGE_URL: 'https://example.com/path',
      GIT_TERMINAL_PROMPT: '0',
    });
  });

  it('drops extra names, case-insensitively', () => {
    expect(
      scrubEnv({ DATABASE_URL: 'postgres://u:p@h', database_url: 'x', LANG: 'C' }, ['DATABASE_URL']),
    ).toEqual({
      LANG: 'C',
      GIT_TERMINAL_PROMPT: '0',
    });
  });

  it('keeps ordinary variables, drops unset ones, and stops git from prompting', () => {
    const scrubbed = scrubEnv({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      UNSET: undefined,
      GIT_TERMINAL_PROMPT: '1',
    });
    expect(scrubbed).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/me', GIT_TERMINAL_PROMPT: '0' });
    expect('UNSET' in scrubbed).toBe(false);
  });

  it('returns a new object and leaves the input alone', () => {
    const env = { GITHUB_TOKEN: 'ghp_x', PATH: '/bin' };
    const scrubbed = scrubEnv(env);
    expect(scrubbed).not.toBe(env);
    expect(env).toEqual({ GITHUB_TOKEN: 'ghp_x', PATH: '/bin' });
  });
});

describe("a GitHub App's private key", () => {
  const pem =
    '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----';

  it('never reaches the agent, and a diff adding it is found by its shape, not its 1.7 KB value', () => {
    const env = {
      ISSUELOOP_APP_PRIVATE_KEY: pem,
      GITHUB_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      PATH: '/bin',
    };
    expect(scrubEnv(env)).toEqual({ PATH: '/bin', GIT_TERMINAL_PROMPT: '0' });
    expect(secretValues(env)).toEqual([env.GITHUB_TOKEN]);
    const diff = `+++ b/leak.txt\n@@ -0,0 +1,3 @@\n${pem
      .split('\n')
      .map((line) => `+${line}`)
      .join('\n')}\n`;
    expect(findSecrets(diff, secretValues(env))).toContainEqual({
      file: 'leak.txt',
      line: 1,
      kind: 'private key',
    });
  });
});
