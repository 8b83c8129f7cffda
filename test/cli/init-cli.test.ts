import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';

const TOKEN = `ghp_${'i'.repeat(36)}`;

describe('issueloop init', () => {
  let root: string;
  let checkout: string;
  const emulator = createGitHubEmulator({ owner: 'acme', repo: 'widgets' });
  let github: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    emulator.addToken(TOKEN, { login: 'maintainer', kind: 'classic', scopes: ['repo'] });
    emulator.setPermission('maintainer', 'admin');
    github = await emulator.listen();
    root = await mkdtemp(join(tmpdir(), 'issueloop-init-'));
    checkout = join(root, 'widgets');
    execFileSync('git', ['init', '-q', '-b', 'main', checkout]);
    execFileSync('git', ['remote', 'add', 'origin', 'https://github.com/acme/widgets.git'], {
      cwd: checkout,
    });
  });
  afterAll(async () => {
    await github.close();
    await rm(root, { recursive: true, force: true });
  });

  it('regression: writes the example configuration, creates the labels on the repository of origin, runs doctor (there was no scaffold)', async () => {
    const result = await runBuiltCli(['init'], {
      cwd: checkout,
      env: { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url },
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`wrote ${join(checkout, 'issueloop.config.yaml')}`);
    expect(result.stdout).toContain(
      'labels: created issueloop, issueloop:in-progress, issueloop:needs-human, issueloop:plan, issueloop:best-of-N on acme/widgets',
    );
    expect(result.stdout).toMatch(/ok\s+config\s+issueloop\.config\.yaml is valid/);
    expect(result.code).toBe(0);
    expect(emulator.repoLabels().map((l) => l.name)).toEqual(
      expect.arrayContaining([
        'issueloop',
        'issueloop:in-progress',
        'issueloop:needs-human',
        'issueloop:plan',
        'issueloop:best-of-N',
      ]),
    );
    const written = await readFile(join(checkout, 'issueloop.config.yaml'), 'utf8');
    const example = await readFile(new URL('../../examples/issueloop.config.yaml', import.meta.url), 'utf8');
    expect(written).toBe(example);
  });

  it('never overwrites a configuration without --force', async () => {
    const again = await runInProcess(['init', '--no-labels'], { cwd: checkout });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`kept ${join(checkout, 'issueloop.config.yaml')} (it exists;`);
    expect(again.stdout).not.toContain('wrote ');
    const forced = await runInProcess(['init', '--force', '--no-labels'], { cwd: checkout });
    expect(forced.stdout).toContain('wrote ');
    expect(forced.stdout).not.toContain('labels:');
  });
});

describe('issueloop init can be run again (issue 30)', () => {
  const emulator = createGitHubEmulator({ owner: 'acme', repo: 'gadgets' });
  let github: { url: string; close(): Promise<void> };
  let checkout: string;

  beforeAll(async () => {
    emulator.addToken(TOKEN, { login: 'maintainer', kind: 'classic', scopes: ['repo'] });
    emulator.setPermission('maintainer', 'admin');
    github = await emulator.listen();
    checkout = await mkdtemp(join(tmpdir(), 'issueloop-init-again-'));
    execFileSync('git', ['init', '-q', '-b', 'main', checkout]);
    execFileSync('git', ['remote', 'add', 'origin', 'https://github.com/acme/gadgets.git'], {
      cwd: checkout,
    });
  });
  afterAll(async () => {
    await github.close();
    await rm(checkout, { recursive: true, force: true });
  });

  it('keeps the edited configuration, creates the labels still missing on GitHub, and runs doctor', async () => {
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url };
    const first = await runInProcess(['init', '--no-labels'], { cwd: checkout, env });
    expect(first.stdout).toContain('wrote ');
    expect(emulator.repoLabels().map((l) => l.name)).not.toContain('fix-me');
    const file = join(checkout, 'issueloop.config.yaml');
    const edited = (await readFile(file, 'utf8')).replace(/^label: issueloop$/m, 'label: fix-me');
    expect(edited).toContain('label: fix-me');
    await writeFile(file, edited);

    const again = await runInProcess(['init'], { cwd: checkout, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`kept ${file}`);
    expect(await readFile(file, 'utf8')).toBe(edited);
    // The labels, from the edited configuration, now exist on the repository of origin.
    expect(again.stdout).toContain(
      'labels: created fix-me, issueloop:in-progress, issueloop:needs-human, issueloop:plan, issueloop:best-of-N on acme/gadgets',
    );
    expect(emulator.repoLabels().map((l) => l.name)).toEqual(
      expect.arrayContaining([
        'fix-me',
        'issueloop:in-progress',
        'issueloop:needs-human',
        'issueloop:plan',
        'issueloop:best-of-N',
      ]),
    );
    // And doctor ran, over the kept file.
    expect(again.stdout).toMatch(/ok\s+config\s+issueloop\.config\.yaml is valid/);
    expect(again.stdout).toMatch(/ok\s+trigger label\s+label "fix-me" exists/);
  });
});

describe('newcomer: init says which labels it created and which were there (it said they all "exist")', () => {
  const emulator = createGitHubEmulator({ owner: 'acme', repo: 'tools' });
  let github: { url: string; close(): Promise<void> };
  let checkout: string;

  beforeAll(async () => {
    emulator.addToken(TOKEN, { login: 'maintainer', kind: 'classic', scopes: ['repo'] });
    emulator.setPermission('maintainer', 'admin');
    // As on a repository where someone already labelled issues by hand.
    emulator.addLabel('issueloop');
    github = await emulator.listen();
    checkout = await mkdtemp(join(tmpdir(), 'issueloop-init-labels-'));
    execFileSync('git', ['init', '-q', '-b', 'main', checkout]);
    execFileSync('git', ['remote', 'add', 'origin', 'https://github.com/acme/tools.git'], { cwd: checkout });
  });
  afterAll(async () => {
    await github.close();
    await rm(checkout, { recursive: true, force: true });
  });

  it('names the labels it made, then on a rerun that all were there already', async () => {
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url };
    const first = await runInProcess(['init'], { cwd: checkout, env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'labels: created issueloop:in-progress, issueloop:needs-human, issueloop:plan, issueloop:best-of-N on acme/tools; issueloop was there already\n',
    );
    expect(emulator.repoLabels().map((l) => l.name)).toEqual(
      expect.arrayContaining([
        'issueloop',
        'issueloop:in-progress',
        'issueloop:needs-human',
        'issueloop:plan',
        'issueloop:best-of-N',
      ]),
    );
    // The labels a maintainer puts on (issue 32) are there to pick, saying what they do.
    const described = (name: string) => emulator.repoLabels().find((l) => l.name === name)?.description;
    expect(described('issueloop:best-of-N')).toBe('issueloop runs several attempts and delivers the best');
    expect(described('issueloop:plan')).toBe('issueloop posts a plan to approve before it works');
    const again = await runInProcess(['init'], { cwd: checkout, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      'labels: issueloop, issueloop:in-progress, issueloop:needs-human, issueloop:plan, issueloop:best-of-N already on acme/tools\n',
    );
    expect(again.stdout).not.toContain('created');
  });
});

describe('issueloop --config <path> init', () => {
  it('writes the configuration there, and doctor reads it', async () => {
    const at = await mkdtemp(join(tmpdir(), 'issueloop-init-config-'));
    try {
      execFileSync('git', ['init', '-q', at]);
      const result = await runInProcess(['--config', 'conf/issueloop.yaml', 'init', '--no-labels'], {
        cwd: at,
      });
      expect(result.stderr).not.toContain('ENOENT');
      expect(result.stdout).toContain(`wrote ${join(at, 'conf', 'issueloop.yaml')}`);
      expect(result.stdout).toMatch(/ok\s+config\s+issueloop\.yaml is valid/);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });
});
