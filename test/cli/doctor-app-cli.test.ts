import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Check } from '../../src/cli/commands/doctor-report.js';
import type { GitHubEmulator } from '../../src/emulators/github/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { appWorld } from '../helpers/github-app.js';

/**
 * `issueloop doctor` and `issueloop init` with a GitHub App alone (no token in the environment), in
 * process against the emulator's App endpoints (its fetch, no socket); the App's key is generated in
 * the test. The checks themselves: doctor-app.test.ts.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-doctor-app-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const world = appWorld;

describe('the doctor and init commands with a GitHub App alone', () => {
  let checkout: string;
  beforeAll(() => {
    checkout = join(dir, 'widgets');
    execFileSync('git', ['init', '-q', '-b', 'main', checkout]);
    execFileSync('git', ['remote', 'add', 'origin', 'https://github.com/octo-org/widgets.git'], {
      cwd: checkout,
    });
  });

  /** The emulator's fetch, keeping every token it minted (to show none is printed). */
  function recording(emulator: GitHubEmulator) {
    const minted: string[] = [];
    const fetch: typeof globalThis.fetch = async (resource, init) => {
      const response = await emulator.fetch(resource, init);
      const url = resource instanceof Request ? resource.url : String(resource);
      if (url.endsWith('/access_tokens') && response.ok) {
        minted.push(((await response.clone().json()) as { token: string }).token);
      }
      return response;
    };
    return { fetch, minted };
  }

  it('doctor (text and --json) says where the credential comes from and never prints the key or a minted token', async () => {
    const { emulator, app, env } = world();
    const { fetch, minted } = recording(emulator);
    const args = ['doctor', '--set', 'sandbox.mode=none'];
    const text = await runInProcess(args, { cwd: checkout, env, io: { fetch } });
    const json = await runInProcess([...args, '--json'], { cwd: checkout, env, io: { fetch } });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /ok\s+github token\s+GitHub App id 4242, its private key from ISSUELOOP_APP_PRIVATE_KEY\n/,
    );
    expect(text.stdout).toMatch(/ok\s+github app\s+GitHub App issueloop-test \(id 4242\), installation 777/);
    expect(text.stdout).toMatch(/ok\s+token kind\s+GitHub App installation \(minted by issueloop\)/);
    const report = JSON.parse(json.stdout) as { checks: Check[] };
    expect(report.checks.find((c) => c.name === 'github app')?.status).toBe('ok');
    expect(minted.length).toBeGreaterThanOrEqual(2);
    const keyLines = app.privateKeyPem.split('\n').filter((line) => line.length > 40);
    expect(keyLines.length).toBeGreaterThan(5);
    for (const output of [text.stdout, text.stderr, json.stdout, json.stderr]) {
      for (const token of minted) expect(output).not.toContain(token);
      for (const line of keyLines) expect(output).not.toContain(line);
    }
  });

  it('doctor with an App not installed exits 1 (a failed check); an App id without its key exits 2', async () => {
    const { emulator, env } = world({ installations: [{ id: 5, account: 'someone-else' }] });
    const args = ['doctor', '--set', 'sandbox.mode=none'];
    const refused = await runInProcess(args, { cwd: checkout, env, io: { fetch: emulator.fetch } });
    expect(refused.stdout).toMatch(
      /fail\s+github app\s+the GitHub App 4242 is not installed on octo-org\/widgets/,
    );
    expect(refused.code).toBe(1);
    const { ISSUELOOP_APP_PRIVATE_KEY: _key, ...withoutKey } = env;
    const keyless = await runInProcess(args, {
      cwd: checkout,
      env: withoutKey,
      io: { fetch: emulator.fetch },
    });
    expect(keyless.stdout).toMatch(
      /fail\s+github token\s+a GitHub App is configured \(github\.app\.id 4242\) but ISSUELOOP_APP_PRIVATE_KEY is not set\n\s+fix: export the App's private key/,
    );
    expect(keyless.code).toBe(2);
  });

  it('a token variable set beside the App is named as unused: the App is the one credential', async () => {
    const { emulator, env } = world();
    const result = await runInProcess(['doctor', '--set', 'sandbox.mode=none'], {
      cwd: checkout,
      env: { ...env, GITHUB_TOKEN: `ghp_${'u'.repeat(36)}` },
      io: { fetch: emulator.fetch },
    });
    expect(result.stdout).toMatch(
      /ok\s+github token\s+GitHub App id 4242, its private key from ISSUELOOP_APP_PRIVATE_KEY; GITHUB_TOKEN is set too, unused \(the App's tokens win\)\n/,
    );
    // The emulator does not know that token: the GitHub checks passed with the App's.
    expect(result.stdout).toMatch(/ok\s+token kind\s+GitHub App installation \(minted by issueloop\)/);
    expect(result.code).toBe(0);
  });

  it('init with only an App creates the labels with its token', async () => {
    const { emulator, env } = world();
    expect(emulator.repoLabels().map((l) => l.name)).toEqual(['issueloop']);
    const result = await runInProcess(['init', '--set', 'sandbox.mode=none'], {
      cwd: checkout,
      env,
      io: { fetch: emulator.fetch },
    });
    expect(result.stdout).toContain(
      'labels: created issueloop:in-progress, issueloop:needs-human, issueloop:plan, issueloop:best-of-N on octo-org/widgets; issueloop was there already',
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
    const created = emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/labels'));
    expect(created).toHaveLength(4);
    expect(emulator.requests.some((r) => r.path.endsWith('/access_tokens'))).toBe(true);
  });
});
