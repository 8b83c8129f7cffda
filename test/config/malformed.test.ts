import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_FRAME } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';

/**
 * Malformed configuration, fed to the built `issueloop doctor` as a user would: each must exit 2,
 * name the offending field (and where its value came from), and print no stack trace.
 */

interface Case {
  name: string;
  /** File name → content written to a fresh directory. */
  files?: Record<string, string>;
  args?: string[];
  env?: Record<string, string>;
  /** Text the output must contain: the field's path and the expectation. */
  expected: string[];
}

const yaml = (content: string): Record<string, string> => ({ 'issueloop.config.yaml': content });

const cases: Case[] = [
  {
    name: 'negative workers',
    files: yaml('workers: -1\n'),
    expected: ['workers: expected number to be >=1, got -1'],
  },
  { name: 'zero workers', files: yaml('workers: 0\n'), expected: ['workers:', '>=1'] },
  {
    name: 'workers as a word',
    files: yaml('workers: four\n'),
    expected: ['workers: expected number, got "four"'],
  },
  { name: 'fractional workers', files: yaml('workers: 2.5\n'), expected: ['workers: expected int'] },
  { name: 'too many workers', files: yaml('workers: 500\n'), expected: ['workers:', '<=32'] },
  {
    name: 'unknown top-level key with a suggestion',
    files: yaml('wokers: 2\n'),
    expected: ['wokers: unknown key (did you mean "workers"?)'],
  },
  {
    name: 'unknown nested key',
    files: yaml('claims:\n  tll: 30m\n'),
    expected: ['claims.tll: unknown key (did you mean "ttl"?)'],
  },
  {
    name: 'repo without owner',
    files: yaml('repo: widgets\n'),
    expected: ['repo: expected a repository as "owner/name"'],
  },
  {
    name: 'repo with an empty name',
    files: yaml('repo: "acme/"\n'),
    expected: ['repo: expected a repository'],
  },
  {
    name: 'repo owner starting with a dash',
    files: yaml('repo: -acme/widgets\n'),
    expected: ['repo: expected'],
  },
  {
    name: 'redis store without a URL',
    files: yaml('claims:\n  store: redis\n'),
    expected: [
      'claims.redis_url: claims.store is redis but no claims.redis_url is set',
      'redis://localhost:6379',
    ],
  },
  {
    name: 'redis URL of another scheme',
    files: yaml('claims:\n  store: redis\n  redis_url: http://cache:6379\n'),
    expected: ['claims.redis_url: expected a Redis URL such as "redis://localhost:6379"'],
  },
  {
    name: 'unknown claim store',
    files: yaml('claims:\n  store: postgres\n'),
    expected: ['claims.store:', '"file"', '"redis"'],
  },
  {
    name: 'duration as a bare number',
    files: yaml('claims:\n  ttl: 30\n'),
    expected: ['claims.ttl: expected a duration'],
  },
  {
    name: 'duration in words',
    files: yaml('claims:\n  ttl: 30 minutes\n'),
    expected: ['claims.ttl: expected a duration such as', '"30 minutes"'],
  },
  {
    name: 'lease TTL too short',
    files: yaml('claims:\n  ttl: 10s\n'),
    expected: ['claims.ttl: expected a duration between 1m and 24h, got "10s"'],
  },
  {
    name: 'negative poll interval',
    files: yaml('poll_interval: -5s\n'),
    expected: ['poll_interval: expected a duration'],
  },
  {
    name: 'max_failures zero',
    files: yaml('claims:\n  max_failures: 0\n'),
    expected: ['claims.max_failures:'],
  },
  {
    name: 'verify as a string',
    files: yaml('verify: npm test\n'),
    expected: ['verify: expected object, got "npm test"'],
  },
  {
    name: 'verify timeout in words',
    files: yaml('verify:\n  timeout: fast\n'),
    expected: ['verify.timeout: expected a duration'],
  },
  {
    name: 'fallbacks as a string',
    files: yaml('model:\n  fallbacks: claude-haiku-5-5\n'),
    expected: ['model.fallbacks: expected array, got "claude-haiku-5-5"'],
  },
  {
    name: 'compaction threshold above 0.95',
    files: yaml('model:\n  compaction_threshold: 1.5\n'),
    expected: ['model.compaction_threshold:', '<=0.95'],
  },
  {
    name: 'negative session budget',
    files: yaml('session:\n  max_usd: -1\n'),
    expected: ['session.max_usd: expected a positive amount'],
  },
  {
    name: 'yes is not a boolean',
    files: yaml('session:\n  keep_worktrees: yes\n'),
    expected: ['session.keep_worktrees: expected boolean'],
  },
  {
    name: 'project without number or title',
    files: yaml('project:\n  owner: acme\n'),
    expected: ['project: set project.number or project.title'],
  },
  {
    name: 'project number as a word',
    files: yaml('project:\n  owner: acme\n  number: seven\n'),
    expected: ['project.number: expected number, got "seven"'],
  },
  {
    name: 'empty status name',
    files: yaml('project:\n  owner: acme\n  number: 1\n  statuses:\n    review: ""\n'),
    expected: ['project.statuses.review:'],
  },
  {
    name: 'bad author e-mail',
    files: yaml('pr:\n  author:\n    email: nope\n'),
    expected: ['pr.author.email: expected an e-mail address'],
  },
  {
    name: 'empty label in a list',
    files: yaml('exclude_labels: [""]\n'),
    expected: ['exclude_labels[0]: expected a non-empty label'],
  },
  {
    name: 'label over 50 characters',
    files: yaml(`label: ${'x'.repeat(51)}\n`),
    expected: ['label: GitHub labels are at most 50 characters'],
  },
  { name: 'unknown log level', files: yaml('log_level: loud\n'), expected: ['log_level:', '"debug"'] },
  {
    name: 'bad env var name to redact',
    files: yaml('redact_env: [BAD-NAME]\n'),
    expected: ['redact_env[0]: expected an environment variable name'],
  },
  {
    name: 'unclosed YAML list',
    files: yaml('workers: [1, 2\n'),
    expected: ['invalid YAML at line', 'issueloop.config.yaml'],
  },
  {
    name: 'duplicate YAML key',
    files: yaml('workers: 1\nworkers: 2\n'),
    expected: ['invalid YAML at line 2', 'unique'],
  },
  {
    name: 'YAML list at the top',
    files: yaml('- workers\n- 2\n'),
    expected: ['expected a mapping of settings, got a list'],
  },
  {
    name: 'broken JSON',
    files: { 'issueloop.config.json': '{"workers": }' },
    expected: ['invalid JSON', 'issueloop.config.json'],
  },
  {
    name: 'two config files',
    files: { 'issueloop.config.yaml': 'workers: 1\n', 'issueloop.config.json': '{}' },
    expected: ['found issueloop.config.yaml and issueloop.config.json: keep one'],
  },
  {
    name: '--config to a missing file',
    args: ['--config', 'nope.yaml'],
    expected: ['config file not found', 'nope.yaml', '--config'],
  },
  {
    name: 'misspelt environment setting',
    env: { ISSUELOOP_WORKRES: '2' },
    expected: ['unknown setting (did you mean ISSUELOOP_WORKERS?) [env ISSUELOOP_WORKRES]'],
  },
  {
    name: 'bad duration from the environment',
    env: { ISSUELOOP_CLAIMS__TTL: 'soon' },
    expected: ['claims.ttl: expected a duration', '[env ISSUELOOP_CLAIMS__TTL]'],
  },
  {
    name: '--set with a bad value',
    args: ['--set', 'pr.draft=maybe'],
    expected: ['pr.draft: expected boolean, got "maybe" [--set pr.draft=maybe]'],
  },
  { name: '--set of an unknown setting', args: ['--set', 'nosuch=1'], expected: ['nosuch: unknown setting'] },
  { name: '--set without a value', args: ['--set', 'workers'], expected: ['expected --set path=value'] },
  {
    name: '--repo that is not a slug',
    args: ['--repo', 'just-a-name'],
    expected: ['repo: expected a repository', '[--repo]'],
  },
  {
    name: 'several problems reported together',
    files: yaml('workers: -1\nlabel: ""\nclaims:\n  ttl: 5\n'),
    expected: ['3 problems', 'workers:', 'label:', 'claims.ttl:'],
  },
];

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'issueloop-malformed-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('malformed configuration → exit 2, the field named, no stack trace', () => {
  cases.forEach((c, index) => {
    it(c.name, async () => {
      const dir = await mkdtemp(join(root, `case-${index}-`));
      for (const [name, content] of Object.entries(c.files ?? {})) await writeFile(join(dir, name), content);
      const result = await runInProcess([...(c.args ?? []), 'doctor'], { cwd: dir, env: c.env ?? {} });
      const output = result.stdout + result.stderr;
      expect(result.code, output).toBe(2);
      for (const text of c.expected) expect(output).toContain(text);
      expect(result.stdout).not.toMatch(STACK_FRAME);
      expect(result.stderr).not.toMatch(STACK_FRAME);
    });
  });

  it('has at least 25 malformed inputs', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it('reports the problems as data with --json', async () => {
    const dir = await mkdtemp(join(root, 'json-'));
    await writeFile(join(dir, 'issueloop.config.yaml'), 'workers: -1\n');
    const result = await runInProcess(['doctor', '--json'], { cwd: dir });
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout);
    const config = report.checks.find((c: { name: string }) => c.name === 'config');
    expect(config).toMatchObject({ status: 'fail', config: true });
    expect(config.detail).toContain('workers: expected number to be >=1, got -1');
  });
});
