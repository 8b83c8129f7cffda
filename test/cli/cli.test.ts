import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/cli/commands/doctor.js';
import { doctorExitCode, renderDoctor } from '../../src/cli/commands/doctor-report.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createAnthropicEmulator } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { CLI, runBuiltCli, STACK_FRAME } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const GITHUB_TOKEN = `ghp_${'T0k3n'.repeat(8)}`;
const ANTHROPIC_API_KEY = `sk-ant-api03-${'K3y_-'.repeat(16)}`;

const ACTIONS_TOKEN = `ghs_${'a'.repeat(36)}`;

let dir: string;
let github: { url: string; close(): Promise<void> };
/** doctor asks the Anthropic API whether it takes the key: here, the scripted server on loopback. */
let anthropic: { url: string; close(): Promise<void> };
beforeAll(async () => {
  anthropic = await createAnthropicEmulator({ apiKey: ANTHROPIC_API_KEY }).listen();
  dir = await mkdtemp(join(tmpdir(), 'issueloop-cli-'));
  await writeFile(
    join(dir, 'issueloop.config.yaml'),
    'repo: acme/widgets\nworkers: 2\nverify:\n  command: node --version\n',
  );
  // A clone, as doctor expects to run in (outside one it warns that run needs one).
  execFileSync('git', ['init', '-q', dir]);
  // doctor talks to GitHub: here, to the emulator on loopback.
  const emulator = createGitHubEmulator({ owner: 'acme', repo: 'widgets' });
  emulator.addToken(GITHUB_TOKEN, { login: 'maintainer', kind: 'classic', scopes: ['repo', 'project'] });
  emulator.addToken(ACTIONS_TOKEN, { login: 'github-actions[bot]', kind: 'installation' });
  emulator.setPermission('maintainer', 'admin');
  emulator.addLabel('issueloop');
  emulator.addProject({
    title: 'Board',
    number: 3,
    statusOptions: ['Todo', 'In Progress', 'In Review', 'Done', 'Needs human'],
  });
  github = await emulator.listen();
});
afterAll(async () => {
  await github.close();
  await anthropic.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the built issueloop binary, and its commands in-process', () => {
  it('--version prints the package version', async () => {
    const result = await runBuiltCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('runs from a bin symlink on PATH, as npm installs it', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(CLI, join(bin, 'issueloop'));
    const { stdout } = await promisify(execFile)('issueloop', ['--version'], {
      cwd: dir,
      env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` },
    });
    expect(stdout).toBe(`${pkg.version}\n`);
  });

  it('--help lists the commands, environment and exit codes', async () => {
    const result = await runBuiltCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('doctor');
    expect(result.stdout).toContain('GITHUB_TOKEN');
    expect(result.stdout).toMatch(/2 bad usage or configuration\s+130 interrupted/);
  });

  it('doctor --help describes the command', async () => {
    const result = await runInProcess(['doctor', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--json');
  });

  it('no command is a usage error (exit 2, help on stderr)', async () => {
    const result = await runBuiltCli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: issueloop');
  });

  it('an unknown command or option is a usage error', async () => {
    const command = await runInProcess(['drain']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("unknown command 'drain'");
    const option = await runInProcess(['doctor', '--jsn']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--jsn'");
    expect(option.stderr + command.stderr).not.toMatch(STACK_FRAME);
  });

  it('doctor passes with a valid config and both credentials, and never prints their values', async () => {
    const result = await runBuiltCli(['doctor'], {
      cwd: dir,
      env: { GITHUB_TOKEN, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL: anthropic.url, GITHUB_API_URL: github.url },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ok\s+config\s+issueloop\.config\.yaml is valid/);
    expect(result.stdout).toMatch(/ok\s+repository\s+acme\/widgets is reachable \(default branch main\)/);
    expect(result.stdout).toMatch(/ok\s+token kind\s+a classic personal access token of maintainer/);
    expect(result.stdout).toMatch(/ok\s+write access\s+the `repo` scope and write access to acme\/widgets/);
    expect(result.stdout).toMatch(
      /ok\s+github api\s+token accepted; \d+ of 5000 requests left this hour; scopes: repo, project/,
    );
    expect(result.stdout).toMatch(/ok\s+trigger label\s+label "issueloop" exists/);
    // Where the token comes from; its kind is the token kind line's, from GitHub's answers.
    expect(result.stdout).toMatch(/ok\s+github token\s+GITHUB_TOKEN is set\n/);
    expect(result.stdout).toContain('ANTHROPIC_API_KEY is set (API key)');
    expect(result.stdout).toMatch(/ok\s+anthropic api\s+http:\/\/127\.0\.0\.1:\d+ accepted the key/);
    expect(result.stdout + result.stderr).not.toContain(GITHUB_TOKEN);
    expect(result.stdout + result.stderr).not.toContain(ANTHROPIC_API_KEY);
    expect(result.stdout).toMatch(/0 warnings, 0 failures\n$/);
  });

  it('doctor starts a real sandbox and says so', async () => {
    const result = await runInProcess(['doctor'], { cwd: dir, env: { GITHUB_API_URL: github.url } });
    expect(result.stdout).toMatch(/ok\s+sandbox\s+\S*bwrap started a sandbox \(own PID namespace/);
  });

  describe('without bubblewrap on PATH', () => {
    let path: string;
    beforeAll(async () => {
      // git and node, and nothing else: no bwrap.
      const bin = join(dir, 'bin-without-bwrap');
      await mkdir(bin, { recursive: true });
      await symlink('/usr/bin/git', join(bin, 'git'));
      path = `${bin}:${dirname(process.execPath)}`;
    });

    it('doctor fails the sandbox check with the install command', async () => {
      const result = await runInProcess(['doctor'], {
        cwd: dir,
        env: { PATH: path, GITHUB_API_URL: github.url },
      });
      expect(result.stdout).toMatch(/fail\s+sandbox\s+bubblewrap \(bwrap\) is not installed or not on PATH/);
      expect(result.stdout).toContain('apt-get install bubblewrap');
      expect(result.code).toBe(1);
    });

    it('run refuses to start unsandboxed: exit 2 naming the fix and the way out', async () => {
      const checkout = join(dir, 'checkout-for-run');
      await promisify(execFile)('git', ['init', '-q', checkout]);
      const result = await runInProcess(['run', '--once', '--repo', 'acme/widgets'], {
        cwd: checkout,
        env: {
          PATH: path,
          GITHUB_TOKEN,
          ANTHROPIC_API_KEY,
          ANTHROPIC_BASE_URL: anthropic.url,
          GITHUB_API_URL: github.url,
        },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('the sandbox cannot start: bubblewrap (bwrap) is not installed');
      expect(result.stderr).toContain('apt-get install bubblewrap');
      expect(result.stderr).toContain('sandbox.mode: none');
      expect(result.stderr).not.toMatch(STACK_FRAME);
    });

    it('with sandbox.mode: none, doctor warns what that gives up instead', async () => {
      const result = await runInProcess(['doctor', '--set', 'sandbox.mode=none'], {
        cwd: dir,
        env: { PATH: path, GITHUB_API_URL: github.url },
      });
      expect(result.stdout).toMatch(
        /warn\s+sandbox\s+sandbox\.mode is none: the agent runs its commands unconfined/,
      );
    });
  });

  it('doctor --json is machine-readable and token-free', async () => {
    const result = await runInProcess(['doctor', '--json', '--repo', 'acme/other'], {
      cwd: dir,
      env: { GH_TOKEN: GITHUB_TOKEN, GITHUB_API_URL: github.url },
    });
    // The flag wins over the file, and that repository does not exist: a failure with its fix.
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.ok).toBe(false);
    expect(report.version).toBe(pkg.version);
    const byName = Object.fromEntries(report.checks.map((c: { name: string }) => [c.name, c]));
    expect(byName.repository).toMatchObject({
      status: 'fail',
      fix: expect.stringMatching(/repository slug/),
    });
    expect(byName['github token'].detail).toBe('GH_TOKEN is set');
    expect(byName['token kind'].detail).toMatch(/^a classic personal access token/);
    expect(byName['anthropic key'].status).toBe('warn');
    expect(result.stdout).not.toContain(GITHUB_TOKEN);
    expect(report.config).toMatchObject({ repo: 'acme/other', workers: 2, claims: { ttl: 1_800_000 } });
  });

  it('doctor warns that an Actions token cannot reach a Projects v2 board', async () => {
    const result = await runInProcess(
      ['doctor', '--set', 'project.owner=acme', '--set', 'project.number=3'],
      {
        cwd: dir,
        env: {
          GITHUB_TOKEN: ACTIONS_TOKEN,
          ANTHROPIC_API_KEY,
          ANTHROPIC_BASE_URL: anthropic.url,
          GITHUB_API_URL: github.url,
        },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /fail\s+project\s+GraphQL FORBIDDEN: Resource not accessible by integration/,
    );
    expect(result.stdout).toMatch(/fix: the Actions token cannot reach Projects v2: use a GitHub App/);
    // Named from GitHub's answers, with the consequence for CI and its fix on the next line.
    expect(result.stdout).toMatch(/ok\s+token kind\s+the GitHub Actions token \(github-actions\[bot\]/);
    expect(result.stdout).toMatch(
      /warn\s+ci on its PRs\s+GitHub starts no workflow run for events the Actions token.*\n\s+fix: use a GitHub App \(app_id and app_private_key/,
    );
    expect(result.stdout).not.toContain(ACTIONS_TOKEN);
  });

  it('regression: doctor never prints an endpoint credential or query string', async () => {
    const result = await runInProcess(['doctor'], {
      cwd: dir,
      env: { ANTHROPIC_BASE_URL: 'https://user:pw-secret@proxy.example/v1?key=supersecretvalue' },
    });
    expect(result.stdout).toContain(
      'ANTHROPIC_BASE_URL=https://proxy.example/v1 (credentials and query not shown)',
    );
    expect(result.stdout).not.toMatch(/supersecretvalue|pw-secret/);
  });

  it('doctor fails with exit 2 on an endpoint that is not a URL', async () => {
    const result = await runInProcess(['doctor'], { cwd: dir, env: { GITHUB_API_URL: 'api.github.com' } });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('GITHUB_API_URL is not an http(s) URL');
  });
});

describe('doctor checks', () => {
  it('fails (exit 1) on a Node older than 22.12 and says how to fix it', async () => {
    const report = await runDoctor({
      cwd: dir,
      env: { PATH: process.env.PATH },
      version: '0.0.0',
      nodeVersion: 'v20.20.2',
    });
    const node = report.checks.find((c) => c.name === 'node');
    expect(node).toMatchObject({ status: 'fail', detail: 'v20.20.2 is older than 22.12' });
    expect(doctorExitCode(report)).toBe(1);
    expect(renderDoctor(report)).toContain('fix: install Node 24 LTS');
  });

  it('accepts 22.12 and newer', async () => {
    for (const version of ['v22.12.0', 'v23.0.0', 'v24.21.0']) {
      const report = await runDoctor({
        cwd: dir,
        env: { PATH: process.env.PATH },
        version: '0',
        nodeVersion: version,
      });
      expect(report.checks.find((c) => c.name === 'node')?.status).toBe('ok');
    }
  });

  it('fails when git is not on PATH', async () => {
    const report = await runDoctor({
      cwd: dir,
      env: { PATH: '/nonexistent' },
      version: '0',
      nodeVersion: 'v24.0.0',
    });
    expect(report.checks.find((c) => c.name === 'git')).toMatchObject({
      status: 'fail',
      detail: 'git is not on PATH',
    });
  });
});

describe('runCli in-process', () => {
  it('redacts the tokens it was given from everything it prints', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli({
      argv: ['doctor', '--config', join(dir, 'missing', GITHUB_TOKEN)],
      env: { GITHUB_TOKEN },
      cwd: dir,
      nodeVersion: 'v24.0.0',
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
    });
    // A missing --config file is a configuration problem reported in the doctor output, not a crash.
    expect(code).toBe(2);
    expect(out.join('')).toContain('config file not found');
    expect(out.join('') + err.join('')).not.toContain(GITHUB_TOKEN);
  });
});

describe('doctor and the Anthropic API', () => {
  it('regression: fails a key the API refuses, and an endpoint nothing answers, naming it (it checked neither)', async () => {
    const refused = await runInProcess(['doctor'], {
      cwd: dir,
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-api03-notTheKey',
        ANTHROPIC_BASE_URL: anthropic.url,
        GITHUB_API_URL: github.url,
      },
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /fail\s+anthropic api\s+http:\/\/127\.0\.0\.1:\d+ refused ANTHROPIC_API_KEY \(HTTP 401\)/,
    );
    expect(refused.stdout).not.toContain('sk-ant-api03-notTheKey');
    const nobody = await runInProcess(['doctor'], {
      cwd: dir,
      env: { ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1', GITHUB_API_URL: github.url },
    });
    expect(nobody.code).toBe(1);
    expect(nobody.stdout).toMatch(/fail\s+anthropic api\s+cannot reach http:\/\/127\.0\.0\.1:1: /);
  });
});
