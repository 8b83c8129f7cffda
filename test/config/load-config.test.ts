import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/core/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problemsOf(promise: Promise<unknown>) {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems;
}

describe('loadConfig', () => {
  it('gives every default without a file', async () => {
    const { config, file } = await loadConfig({ cwd: dir, env: {} });
    expect(file).toBeUndefined();
    expect(config).toMatchObject({
      label: 'issueloop',
      exclude_labels: ['issueloop:needs-human', 'wontfix'],
      workers: 1,
      empty_rounds: 3,
      poll_interval: 60_000,
      state_dir: '.issueloop',
      claims: { store: 'file', ttl: 1_800_000, max_failures: 3 },
      model: { fallbacks: [], compaction_threshold: 0.8 },
      session: { max_model_calls_per_turn: 25 },
      verify: { timeout: 600_000, retries: 1 },
      pr: { draft: true },
    });
    expect(config.repo).toBeUndefined();
    expect(config.project).toBeUndefined();
  });

  it('layers defaults < file < env < flags', async () => {
    await writeFile(
      join(dir, 'issueloop.config.yaml'),
      'repo: acme/from-file\nworkers: 2\nlabel: agent\nclaims:\n  ttl: 20m\n  max_failures: 5\n',
    );
    const { config, file } = await loadConfig({
      cwd: dir,
      env: { ISSUELOOP_WORKERS: '3', ISSUELOOP_CLAIMS__TTL: '40m', GITHUB_REPOSITORY: 'acme/from-actions' },
      sets: ['claims.ttl=50m'],
      flags: { repo: { value: 'acme/from-flag', flag: '--repo' } },
    });
    expect(file).toBe(join(dir, 'issueloop.config.yaml'));
    expect(config.repo).toBe('acme/from-flag');
    expect(config.workers).toBe(3);
    expect(config.label).toBe('agent');
    expect(config.claims).toEqual({ store: 'file', ttl: 3_000_000, max_failures: 5 });
  });

  it('takes the repository from GITHUB_REPOSITORY unless ISSUELOOP_REPO or the file names one', async () => {
    expect((await loadConfig({ cwd: dir, env: { GITHUB_REPOSITORY: 'acme/ci' } })).config.repo).toBe(
      'acme/ci',
    );
    const both = await loadConfig({
      cwd: dir,
      env: { GITHUB_REPOSITORY: 'acme/ci', ISSUELOOP_REPO: 'acme/mine' },
    });
    expect(both.config.repo).toBe('acme/mine');
  });

  it('replaces lists instead of merging them', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), 'exclude_labels: [a, b]\n');
    const { config } = await loadConfig({ cwd: dir, env: { ISSUELOOP_EXCLUDE_LABELS: '[c]' } });
    expect(config.exclude_labels).toEqual(['c']);
  });

  it('reads JSON files and ISSUELOOP_CONFIG', async () => {
    await writeFile(
      join(dir, 'custom.json'),
      JSON.stringify({ workers: 4, project: { owner: 'acme', number: 2 } }),
    );
    const { config } = await loadConfig({ cwd: dir, env: { ISSUELOOP_CONFIG: 'custom.json' } });
    expect(config.workers).toBe(4);
    expect(config.project).toMatchObject({ owner: 'acme', number: 2, status_field: 'Status' });
    expect(config.project?.statuses).toEqual({
      queued: 'Todo',
      working: 'In Progress',
      review: 'In Review',
      done: 'Done',
      blocked: 'Needs human',
    });
  });

  it('treats an empty file as no settings', async () => {
    await writeFile(join(dir, 'issueloop.config.yml'), '# nothing yet\n');
    expect((await loadConfig({ cwd: dir, env: {} })).config.workers).toBe(1);
  });

  it('keeps a string that looks like YAML as a string', async () => {
    const { config } = await loadConfig({ cwd: dir, env: { ISSUELOOP_LABEL: 'fix: typo' } });
    expect(config.label).toBe('fix: typo');
  });

  it('reports every problem of every layer at once, each with its source', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), 'workers: 0\nclaims:\n  tll: 30m\n');
    const problems = await problemsOf(
      loadConfig({
        cwd: dir,
        env: { ISSUELOOP_SESSION__MAX_USD: 'lots' },
        sets: ['pr.draft=maybe', 'verify.comand=x'],
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'workers', message: 'expected number to be >=1, got 0', source: 'issueloop.config.yaml' },
        { path: 'claims.tll', message: 'unknown key (did you mean "ttl"?)', source: 'issueloop.config.yaml' },
        {
          path: 'session.max_usd',
          message: 'expected number, got "lots"',
          source: 'env ISSUELOOP_SESSION__MAX_USD',
        },
        { path: 'pr.draft', message: 'expected boolean, got "maybe"', source: '--set pr.draft=maybe' },
        {
          path: 'verify.comand',
          message: 'unknown setting (did you mean verify.command?)',
          source: '--set verify.comand=x',
        },
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('refuses two config files side by side', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), 'workers: 1\n');
    await writeFile(join(dir, 'issueloop.config.json'), '{}');
    const [problem] = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problem?.message).toBe(
      'found issueloop.config.yaml and issueloop.config.json: keep one of them, or choose with --config',
    );
  });
});
