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

  it('regression: GITHUB_REPOSITORY sits below the config file', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), 'repo: acme/real\n');
    const { config } = await loadConfig({ cwd: dir, env: { GITHUB_REPOSITORY: 'acme/workflow-repo' } });
    expect(config.repo).toBe('acme/real');
  });

  it('blames a bad GITHUB_REPOSITORY on the variable, not on the file', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), 'workers: 2\n');
    const problems = await problemsOf(loadConfig({ cwd: dir, env: { GITHUB_REPOSITORY: 'not-a-slug' } }));
    expect(problems).toEqual([expect.objectContaining({ path: 'repo', source: 'env GITHUB_REPOSITORY' })]);
  });

  it('regression: an empty ISSUELOOP_ variable counts as unset (an unfilled Actions input)', async () => {
    const env = { ISSUELOOP_MAX_ROUNDS: '', ISSUELOOP_REPO: '', GITHUB_REPOSITORY: 'acme/ci' };
    const { config } = await loadConfig({ cwd: dir, env });
    expect(config.max_rounds).toBeUndefined();
    expect(config.repo).toBe('acme/ci');
  });

  it('regression: text values are typed by the setting they go to, not guessed', async () => {
    const { config } = await loadConfig({
      cwd: dir,
      env: { ISSUELOOP_LABEL: '2024', ISSUELOOP_EXCLUDE_LABELS: 'wontfix, blocked', ISSUELOOP_WORKERS: '3' },
      sets: [
        'verify.command=[ -f package.json ] && npm test',
        'pr.base=1.0',
        'pr.draft=false',
        'model.fallbacks=[claude-opus-5-5]',
      ],
    });
    expect(config.label).toBe('2024');
    expect(config.exclude_labels).toEqual(['wontfix', 'blocked']);
    expect(config.workers).toBe(3);
    expect(config.verify.command).toBe('[ -f package.json ] && npm test');
    expect(config.pr.base).toBe('1.0');
    expect(config.pr.draft).toBe(false);
    expect(config.model.fallbacks).toEqual(['claude-opus-5-5']);
  });

  it('regression: a bad list element set from the environment is blamed on the variable', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), 'workers: 1\n');
    const env = { ISSUELOOP_MODEL__FALLBACKS: '[claude-ok, "bad id!"]' };
    const problems = await problemsOf(loadConfig({ cwd: dir, env }));
    expect(problems).toEqual([
      expect.objectContaining({ path: 'model.fallbacks[1]', source: 'env ISSUELOOP_MODEL__FALLBACKS' }),
    ]);
  });

  it('suggests the section separator for a single underscore', async () => {
    const problems = await problemsOf(loadConfig({ cwd: dir, env: { ISSUELOOP_CLAIMS_TTL: '45m' } }));
    expect(problems[0]?.message).toBe('unknown setting (did you mean ISSUELOOP_CLAIMS__TTL?)');
  });

  it('supports YAML anchors and merge keys', async () => {
    const yaml = [
      'model:',
      '  prices:',
      '    claude-a: &price { input: 3, output: 15 }',
      '    claude-b:',
      '      <<: *price',
      '      output: 20',
      'pr:',
      '  labels: &bot [bot]',
      'exclude_labels: *bot',
    ].join('\n');
    await writeFile(join(dir, 'issueloop.config.yaml'), `${yaml}\n`);
    const { config } = await loadConfig({ cwd: dir, env: {} });
    expect(config.model.prices['claude-b']).toEqual({ input: 3, output: 20 });
    expect(config.exclude_labels).toEqual(['bot']);
  });

  it('regression: an alias bomb is a configuration error, not a crash', async () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    const keys = 'abcdefghi';
    for (let i = 1; i < keys.length; i++) {
      const prev = `*${keys[i - 1]}`;
      lines.push(`${keys[i]}: &${keys[i]} [${Array(9).fill(prev).join(', ')}]`);
    }
    await writeFile(join(dir, 'issueloop.config.yaml'), `${lines.join('\n')}\n`);
    const [problem] = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problem?.message).toMatch(/^invalid YAML: .*alias/i);
  });

  it('regression: a __proto__ key is rejected, not turned into the prototype', async () => {
    await writeFile(join(dir, 'issueloop.config.yaml'), '__proto__:\n  workers: 7\n');
    const problems = await problemsOf(loadConfig({ cwd: dir, env: {} }));
    expect(problems).toEqual([expect.objectContaining({ path: '__proto__', message: 'unknown key' })]);
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
      plan_review: 'Plan review',
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
