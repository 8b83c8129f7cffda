import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { startRedisServer, useRedisServer } from '../helpers/redis-server.js';
import { useRunFixture } from './run-fixture.js';

const redis = useRedisServer();

const ARGS = [
  '--repo',
  'octo-org/widgets',
  '--set',
  'empty_rounds=1',
  '--set',
  'verify.command=grep -q "\'hello\'" greet.js',
  '--set',
  'log_level=warn',
];

describe('the built CLI with claims.store: redis', () => {
  const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

  it('smoke: a run keeps its claims in Redis and survives a Redis restart in the middle of a session', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({
      title: 'Greeting typo',
      body: 'greet() says helo',
      author: 'octocat',
      authorAssociation: 'MEMBER',
      labels: ['issueloop'],
    });
    let restarted: Promise<void> | undefined;
    const { env } = await run.start((request) => {
      if (request.messages.length > 1) return reply.text('Fixed.');
      // The lease was taken in Redis a moment ago; the server goes away and comes back mid-session.
      restarted = redis.server.restart();
      return reply.toolUse([
        {
          name: 'str_replace_based_edit_tool',
          input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
        },
      ]);
    });
    const redisEnv = {
      ...env,
      ISSUELOOP_CLAIMS__STORE: 'redis',
      ISSUELOOP_CLAIMS__REDIS_URL: redis.server.url,
    };
    const result = await runBuiltCli(['run', ...ARGS], { cwd: run.fx.checkout, env: redisEnv });
    await restarted;
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`#${number}\\s+resolved`));

    const claims = await runInProcess(['claims', '--json', ...ARGS], {
      cwd: run.fx.checkout,
      env: redisEnv,
    });
    expect(claims.code).toBe(0);
    const report = JSON.parse(claims.stdout) as { location: string; claims: Array<Record<string, unknown>> };
    expect(report.location).toBe(`${redis.server.url} (octo-org/widgets)`);
    expect(report.claims).toEqual([
      expect.objectContaining({ issue: number, lease: null, last_outcome: 'resolved', attempts: 1 }),
    ]);
  });
});

describe('claims.store: redis, in process', () => {
  let cwd = '';
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'issueloop-redis-cli-'));
  });
  afterAll(() => rm(cwd, { recursive: true, force: true }));

  it('doctor says when Redis cannot be reached, naming the server but not the password', {
    timeout: 30_000,
  }, async () => {
    const gone = await startRedisServer();
    await gone.stop();
    // No sandbox probe: this is about the claims check.
    const result = await runInProcess(['doctor', '--json', '--repo', 'octo-org/widgets'], {
      cwd,
      env: {
        ISSUELOOP_SANDBOX__MODE: 'none',
        ISSUELOOP_CLAIMS__STORE: 'redis',
        ISSUELOOP_CLAIMS__REDIS_URL: `redis://fleet:pa55word@127.0.0.1:${gone.port}`,
      },
    });
    const report = JSON.parse(result.stdout) as {
      checks: Array<{ name: string; status: string; detail: string }>;
      config: { claims: { redis_url: string } };
    };
    const check = report.checks.find((c) => c.name === 'claims');
    expect(check?.status).toBe('fail');
    expect(check?.detail).toContain(`claim store redis://127.0.0.1:${gone.port} unreachable`);
    expect(report.config.claims.redis_url).toMatch(
      new RegExp(`^redis://\\*\\*\\*:.+@127\\.0\\.0\\.1:${gone.port}$`),
    );
    expect(result.stdout + result.stderr).not.toContain('pa55word');

    const ok = await runInProcess(['doctor', '--json', '--repo', 'octo-org/widgets'], {
      cwd,
      env: {
        ISSUELOOP_SANDBOX__MODE: 'none',
        ISSUELOOP_CLAIMS__STORE: 'redis',
        ISSUELOOP_CLAIMS__REDIS_URL: redis.server.url,
      },
    });
    const okReport = JSON.parse(ok.stdout) as {
      checks: Array<{ name: string; status: string; detail: string }>;
    };
    expect(okReport.checks.find((c) => c.name === 'claims')).toMatchObject({ status: 'ok' });
  });

  it('claims.store redis without a URL is a configuration error naming the setting (exit 2)', async () => {
    const result = await runInProcess(['claims', ...ARGS], {
      cwd,
      env: { ISSUELOOP_CLAIMS__STORE: 'redis' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('claims.redis_url');
    expect(result.stderr).toContain('redis://localhost:6379');
  });
});
