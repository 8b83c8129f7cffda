import { describe, expect, it } from 'vitest';
import { createProcessDeps } from '../../src/run/process-deps.js';
import { secretsFromEnv } from '../../src/run/secrets.js';

describe('createProcessDeps', () => {
  it('builds a logger that redacts the tokens in the environment and the named extra variables', async () => {
    const lines: string[] = [];
    const env = { GITHUB_TOKEN: 'tok-github-value', NPM_TOKEN: 'npm-secret-value', OTHER: 'visible-value' };
    const deps = await createProcessDeps({
      env,
      level: 'info',
      isTTY: false,
      write: (l) => lines.push(l),
      redactEnv: ['NPM_TOKEN'],
    });
    deps.log.info({ a: env.GITHUB_TOKEN, b: env.NPM_TOKEN, c: env.OTHER }, 'values');
    const out = lines.join('');
    expect(out).not.toContain('tok-github-value');
    expect(out).not.toContain('npm-secret-value');
    expect(out).toContain('visible-value');
  });

  it('uses the real clock and a reproducible random when seeded', async () => {
    const make = () =>
      createProcessDeps({ env: {}, level: 'silent', isTTY: false, write: () => {}, seed: 9 });
    const [a, b] = await Promise.all([make(), make()]);
    expect([a.random(), a.random()]).toEqual([b.random(), b.random()]);
    expect(Math.abs(a.clock.now() - Date.now())).toBeLessThan(5_000);
    expect(a.fetch).toBe(globalThis.fetch);
  });
});

describe('secretsFromEnv', () => {
  it('lists the set, non-empty credential values', () => {
    expect(
      secretsFromEnv({ GITHUB_TOKEN: 'a-token', GH_TOKEN: '', ANTHROPIC_API_KEY: 'k-value', X: 'x' }, [
        'X',
        'MISSING',
      ]),
    ).toEqual(['a-token', 'k-value', 'x']);
  });

  it("keeps a Redis URL's credentials secret (as written and decoded), not the server it names", () => {
    expect(secretsFromEnv({ ISSUELOOP_CLAIMS__REDIS_URL: 'redis://fleet:p%40ss@cache:6379/1' })).toEqual([
      'redis://fleet:p%40ss@cache:6379/1',
      'p%40ss',
      'p@ss',
    ]);
    expect(secretsFromEnv({ ISSUELOOP_CLAIMS__REDIS_URL: 'redis://cache:6379?password=q-secret' })).toContain(
      'q-secret',
    );
    expect(secretsFromEnv({ ISSUELOOP_CLAIMS__REDIS_URL: 'redis://cache:6379' })).toEqual([]);
  });

  it('regression: a URL-shaped secret named in redact_env is redacted whole, password or not', () => {
    const hook = 'https://hooks.slack.com/services/T000/B000/XXXXsecret';
    expect(secretsFromEnv({ SLACK_WEBHOOK_URL: hook }, ['SLACK_WEBHOOK_URL'])).toEqual([hook]);
  });
});
