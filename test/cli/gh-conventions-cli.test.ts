import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { type ScriptedGh, scriptedGh } from '../helpers/scripted-gh.js';

// gh's conventions (issue 30, item 5): doctor, init and run find the repository and the token the
// same way: -R, GH_REPO, the origin remote; GH_TOKEN before GITHUB_TOKEN; `gh auth token`.

const PAT = `ghp_${'c'.repeat(36)}`;
const GH_LOGIN = `gho_${'l'.repeat(36)}`;
const UNKNOWN = `ghp_${'u'.repeat(36)}`;

interface Check {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}

describe("gh's conventions: the repository and the token, the same for every command", () => {
  const emulator = createGitHubEmulator({ owner: 'acme', repo: 'widgets' });
  let github: { url: string; close(): Promise<void> };
  let root: string;
  let clone: string;
  let plain: string;
  let gh: ScriptedGh;
  let loggedOut: ScriptedGh;

  beforeAll(async () => {
    emulator.addToken(PAT, { login: 'maintainer', kind: 'classic', scopes: ['repo'] });
    emulator.addToken(GH_LOGIN, { login: 'maintainer', kind: 'classic', scopes: ['repo', 'gist'] });
    emulator.setPermission('maintainer', 'admin');
    github = await emulator.listen();
    root = await mkdtemp(join(tmpdir(), 'issueloop-ghconv-'));
    clone = join(root, 'widgets');
    plain = join(root, 'plain');
    execFileSync('git', ['init', '-q', '-b', 'main', clone]);
    execFileSync('git', ['init', '-q', '-b', 'main', plain]);
    execFileSync('git', ['remote', 'add', 'origin', 'https://github.com/acme/widgets.git'], { cwd: clone });
    gh = await scriptedGh(`${GH_LOGIN}\n`);
    loggedOut = await scriptedGh(undefined);
  });
  afterAll(async () => {
    await github.close();
    await Promise.all([gh.cleanup(), loggedOut.cleanup()]);
    await rm(root, { recursive: true, force: true });
  });

  async function doctor(cwd: string, env: Record<string, string>, args: string[] = []) {
    const result = await runInProcess(['doctor', '--json', '--set', 'sandbox.mode=none', ...args], {
      cwd,
      env: { PATH: loggedOut.path, GITHUB_API_URL: github.url, ...env },
    });
    const report = JSON.parse(result.stdout) as { checks: Check[]; config?: { repo?: string } };
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    return { result, report, byName };
  }

  it('regression: doctor said "no repository set" in a clone whose origin run uses', async () => {
    const offline = await doctor(clone, {});
    expect(offline.byName.repository).toMatchObject({
      status: 'ok',
      detail: 'acme/widgets (from the origin remote)',
    });
    expect(offline.report.config?.repo).toBe('acme/widgets');
    const online = await doctor(clone, { GITHUB_TOKEN: PAT });
    expect(online.byName.repository).toMatchObject({ status: 'ok' });
    expect(online.byName.repository?.detail).toMatch(/^acme\/widgets is reachable/);
    expect(online.result.stdout).not.toContain('no repository set');
    // run finds the same repository: its dry run reads acme/widgets' backlog from the emulator.
    emulator.resetRequests();
    const dry = await runInProcess(['run', '--dry-run'], {
      cwd: clone,
      env: { PATH: loggedOut.path, GITHUB_API_URL: github.url, GITHUB_TOKEN: PAT },
    });
    expect(dry.code).toBe(0);
    expect(emulator.requests.some((r) => r.path.startsWith('/repos/acme/widgets/issues?'))).toBe(true);
  });

  it('-R owner/name is --repo, and GH_REPO names the repository as gh reads it', async () => {
    const flag = await doctor(plain, { GITHUB_TOKEN: PAT }, ['-R', 'acme/widgets']);
    expect(flag.byName.repository?.detail).toMatch(/^acme\/widgets is reachable/);
    const env = await doctor(plain, { GH_REPO: 'acme/widgets' });
    expect(env.byName.repository).toMatchObject({ status: 'ok', detail: 'acme/widgets (from env GH_REPO)' });
    const neither = await doctor(plain, {});
    expect(neither.byName.repository).toMatchObject({ status: 'warn' });
    expect(neither.byName.repository?.fix).toMatch(/-R.*GH_REPO/);
  });

  it('GH_TOKEN is taken before GITHUB_TOKEN, with a warning when they differ', async () => {
    const { byName, result } = await doctor(clone, { GH_TOKEN: PAT, GITHUB_TOKEN: UNKNOWN });
    // GitHub accepted the token: GH_TOKEN's (the emulator does not know GITHUB_TOKEN's).
    expect(byName['github api']?.status).toBe('ok');
    expect(byName['github token']).toMatchObject({
      status: 'warn',
      detail: 'GH_TOKEN is set',
      fix: expect.stringMatching(/both set, to different tokens: using GH_TOKEN/),
    });
    expect(result.stdout).not.toContain(PAT);
    // run says it once, on stderr, and works with GH_TOKEN's.
    const dry = await runInProcess(['run', '--dry-run'], {
      cwd: clone,
      env: { PATH: loggedOut.path, GITHUB_API_URL: github.url, GH_TOKEN: PAT, GITHUB_TOKEN: UNKNOWN },
    });
    expect(dry.code).toBe(0);
    expect(dry.stderr.match(/both set, to different tokens: using GH_TOKEN/g)).toHaveLength(1);
    expect(dry.stderr + dry.stdout).not.toContain(UNKNOWN);
  });

  it('without a token variable, the token of `gh auth login` is used by doctor and init, and never printed', async () => {
    const env = { PATH: gh.path, GITHUB_API_URL: github.url };
    const checked = await doctor(clone, env);
    expect(checked.byName['github token']).toMatchObject({
      status: 'ok',
      detail: 'from `gh auth token`',
    });
    expect(checked.byName['github api']?.status).toBe('ok');
    const init = await runInProcess(['init'], { cwd: clone, env });
    expect(init.stdout).toContain(
      'labels: created issueloop, issueloop:in-progress, issueloop:needs-human, issueloop:plan, issueloop:best-of-N on acme/widgets',
    );
    for (const text of [checked.result.stdout, checked.result.stderr, init.stdout, init.stderr]) {
      expect(text).not.toContain(GH_LOGIN);
    }
    expect(await gh.calls()).toContain(`auth token --hostname ${new URL(github.url).host}`);
  });

  it("a token from gh is redacted like a variable's, whatever its shape", async () => {
    // No known token shape: only redaction of the value itself hides it.
    const shapeless = 'plainGhLogin42xyzABCDEFGH';
    emulator.addToken(shapeless, { login: 'maintainer', kind: 'classic', scopes: ['repo'] });
    const plainGh = await scriptedGh(`${shapeless}\n`);
    try {
      // An issue whose title quotes the token: the dry run prints titles.
      const quoting = emulator.addIssue({
        title: `leak ${shapeless} here`,
        author: 'maintainer',
        authorAssociation: 'OWNER',
        labels: ['issueloop'],
      });
      const result = await runInProcess(['run', '--dry-run'], {
        cwd: clone,
        env: { PATH: plainGh.path, GITHUB_API_URL: github.url },
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`#${quoting} leak [REDACTED] here`);
      expect(result.stderr + result.stdout).not.toContain(shapeless);
    } finally {
      await plainGh.cleanup();
    }
  });

  it('gh logged out: the "no GitHub token" message names gh auth login too', async () => {
    const result = await runInProcess(['run', '--repo', 'acme/widgets'], {
      cwd: clone,
      env: { PATH: loggedOut.path, ANTHROPIC_API_KEY: 'sk-ant-api03-x' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /no GitHub token: export GH_TOKEN or GITHUB_TOKEN, or log in with `gh auth login`/,
    );
  });

  it('newcomer: a token holding a newline is named (GITHUB_TOKEN contains a newline), exit 2 with the fix', async () => {
    const env = { PATH: loggedOut.path, GITHUB_API_URL: github.url, GITHUB_TOKEN: `${PAT}\n` };
    const run = await runInProcess(['run', '--dry-run'], { cwd: clone, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/GITHUB_TOKEN contains a newline \(at its end\)/);
    expect(run.stderr).toContain('tr -d');
    expect(run.stderr).not.toContain(PAT);
    const checked = await doctor(clone, env);
    expect(checked.result.code).toBe(2);
    expect(checked.byName['github token']).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^GITHUB_TOKEN contains a newline/),
    });
    // The token is not sent anywhere: no GitHub check ran with it.
    expect(checked.byName['github api']).toBeUndefined();
  });
});
