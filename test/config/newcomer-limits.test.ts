import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS } from '../../src/config/duration.js';
import { loadConfig } from '../../src/config/load-config.js';
import { MAX_USD } from '../../src/config/schema.js';
import { ConfigError } from '../../src/core/errors.js';
import { runInProcess } from '../helpers/cli-in-process.js';

/**
 * Issue 30, item 8 (newcomer): a duration longer than a timer can hold (Node fires such a timer at
 * once, with only a warning) and an absurd dollar cap (`1e308`, `.inf`) are configuration errors
 * naming the field, from the file, the environment and `--set` alike.
 */

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'issueloop-limits-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function problemsOf(options: Parameters<typeof loadConfig>[0]) {
  const err = await loadConfig(options).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems;
}

async function configIn(content: string): Promise<string> {
  const dir = await mkdtemp(join(root, 'case-'));
  await writeFile(join(dir, 'issueloop.config.yaml'), content);
  return dir;
}

const DURATION_FIELDS = [
  'claims.ttl',
  'session.max_duration',
  'session.command_timeout',
  'session.setup_timeout',
  'verify.timeout',
  'pr.watch_interval',
  'poll_interval',
];

function yamlAt(path: string, value: string): string {
  const keys = path.split('.');
  return keys
    .map((key, depth) => `${'  '.repeat(depth)}${key}:${depth === keys.length - 1 ? ` ${value}` : ''}`)
    .join('\n');
}

describe('newcomer: durations past what a timer can hold and absurd dollar caps are refused naming the field', () => {
  it('takes the longest duration a timer holds and refuses one millisecond more', async () => {
    const dir = await configIn('session:\n  max_duration: 24d\n');
    const { config } = await loadConfig({ cwd: dir, env: {} });
    expect(config.session.max_duration).toBe(24 * 86_400_000);
    expect(24 * 86_400_000).toBeLessThanOrEqual(MAX_TIMER_MS);
    const over = await problemsOf({
      cwd: await configIn(`session:\n  max_duration: ${MAX_TIMER_MS + 1}ms\n`),
      env: {},
    });
    expect(over).toEqual([expect.objectContaining({ path: 'session.max_duration' })]);
    expect(over[0]?.message).toContain('at most 24d');
  });

  it.each(DURATION_FIELDS)('refuses 30d in %s, naming it', async (path) => {
    const problems = await problemsOf({ cwd: await configIn(`${yamlAt(path, '30d')}\n`), env: {} });
    expect(problems.map((p) => p.path)).toContain(path);
    // Fields with a smaller maximum of their own (claims.ttl: 24h) say their range instead.
    expect(problems.find((p) => p.path === path)?.message).toMatch(
      /(at most 24d \(.*\)|between \S+ and \S+), got "30d"/,
    );
  });

  it('refuses a duration too long for a timer from the environment and from --set, naming the source', async () => {
    const dir = await configIn('workers: 1\n');
    const fromEnv = await problemsOf({ cwd: dir, env: { ISSUELOOP_CLAIMS__TTL: '9999999h' } });
    expect(fromEnv).toEqual([
      expect.objectContaining({ path: 'claims.ttl', source: 'env ISSUELOOP_CLAIMS__TTL' }),
    ]);
    const fromSet = await problemsOf({ cwd: dir, env: {}, sets: ['poll_interval=25d'] });
    expect(fromSet).toEqual([
      expect.objectContaining({ path: 'poll_interval', source: '--set poll_interval=25d' }),
    ]);
  });

  it.each([
    ['session.max_usd', '1e308', 'at most 1000000 US dollars'],
    ['session.max_usd', '.inf', 'got Infinity'],
    ['run_max_usd', '1000001', 'at most 1000000 US dollars'],
    ['run_max_usd', '.nan', 'got NaN'],
    ['budget.daily_usd', '1e308', 'at most 1000000 US dollars'],
    ['budget.monthly_usd', '-20', 'expected a positive amount in US dollars'],
  ])('refuses %s: %s, naming the field', async (path, value, expected) => {
    const problems = await problemsOf({ cwd: await configIn(`${yamlAt(path, value)}\n`), env: {} });
    expect(problems).toEqual([expect.objectContaining({ path })]);
    expect(problems[0]?.message).toContain(expected);
  });

  it('takes a cap of exactly the maximum', async () => {
    const { config } = await loadConfig({ cwd: await configIn(`run_max_usd: ${MAX_USD}\n`), env: {} });
    expect(config.run_max_usd).toBe(1_000_000);
  });

  it('takes budget.daily_usd and budget.monthly_usd, each optional', async () => {
    const { config } = await loadConfig({ cwd: await configIn('budget:\n  daily_usd: 20\n'), env: {} });
    expect(config.budget).toEqual({ daily_usd: 20 });
    const fromEnv = await loadConfig({
      cwd: await configIn('workers: 1\n'),
      env: { ISSUELOOP_BUDGET__MONTHLY_USD: '300' },
    });
    expect(fromEnv.config.budget).toEqual({ monthly_usd: 300 });
  });

  it('refuses absurd caps given as environment variables and --set, naming the source', async () => {
    const dir = await configIn('workers: 1\n');
    const fromEnv = await problemsOf({ cwd: dir, env: { ISSUELOOP_RUN_MAX_USD: '1e308' } });
    expect(fromEnv).toEqual([
      expect.objectContaining({
        path: 'run_max_usd',
        source: 'env ISSUELOOP_RUN_MAX_USD',
        message: expect.stringContaining('at most 1000000'),
      }),
    ]);
    const fromSet = await problemsOf({ cwd: dir, env: {}, sets: ['session.max_usd=Infinity'] });
    expect(fromSet).toEqual([
      expect.objectContaining({ path: 'session.max_usd', source: '--set session.max_usd=Infinity' }),
    ]);
  });

  it('exits 2 from the CLI with the field and its source', async () => {
    const dir = await configIn('session:\n  max_usd: 1e308\n');
    const result = await runInProcess(['doctor'], { cwd: dir, env: { ISSUELOOP_VERIFY__TIMEOUT: '100d' } });
    const output = result.stdout + result.stderr;
    expect(result.code, output).toBe(2);
    expect(output).toContain('session.max_usd: expected at most 1000000 US dollars');
    expect(output).toContain('verify.timeout: expected a duration of at most 24d');
    expect(output).toContain('[env ISSUELOOP_VERIFY__TIMEOUT]');
  });
});
