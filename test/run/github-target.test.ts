import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { UsageError } from '../../src/core/errors.js';
import { createRedactor } from '../../src/core/redact.js';
import { checkedToken, envToken, tokenConflict, tokenTextProblem } from '../../src/run/env-token.js';
import { ghAuthToken, ghHost } from '../../src/run/gh-auth-token.js';
import { requireGithubToken } from '../../src/run/github-deps.js';
import { resolveGitHubTarget, targetEnv } from '../../src/run/github-target.js';
import { type ScriptedGh, scriptedGh } from '../helpers/scripted-gh.js';

const GH = `gho_${'g'.repeat(36)}`;
const PAT = `ghp_${'p'.repeat(36)}`;
const OTHER = `ghp_${'o'.repeat(36)}`;
const redact = createRedactor([]);

describe('the GitHub token: GH_TOKEN before GITHUB_TOKEN, as gh takes them', () => {
  it('takes GH_TOKEN first, and says so once when both are set to different tokens', () => {
    expect(envToken({ GH_TOKEN: PAT, GITHUB_TOKEN: OTHER })).toEqual({ name: 'GH_TOKEN', token: PAT });
    expect(envToken({ GITHUB_TOKEN: OTHER })).toEqual({ name: 'GITHUB_TOKEN', token: OTHER });
    // An empty variable (what Actions passes for an unset input) is not a token.
    expect(envToken({ GH_TOKEN: '', GITHUB_TOKEN: OTHER })).toEqual({ name: 'GITHUB_TOKEN', token: OTHER });
    expect(tokenConflict({ GH_TOKEN: PAT, GITHUB_TOKEN: OTHER })).toMatch(
      /GH_TOKEN and GITHUB_TOKEN are both set, to different tokens: using GH_TOKEN/,
    );
    expect(tokenConflict({ GH_TOKEN: PAT, GITHUB_TOKEN: PAT })).toBeUndefined();
    expect(requireGithubToken({ GH_TOKEN: PAT, GITHUB_TOKEN: OTHER })).toBe(PAT);
  });

  it('newcomer: a token holding a newline is named (GITHUB_TOKEN contains a newline), with the fix', () => {
    expect(() => requireGithubToken({ GITHUB_TOKEN: `${PAT}\n` })).toThrow(UsageError);
    expect(() => requireGithubToken({ GITHUB_TOKEN: `${PAT}\n` })).toThrow(
      /^GITHUB_TOKEN contains a newline \(at its end\): .*export GITHUB_TOKEN="\$\(printf %s "\$GITHUB_TOKEN" \| tr -d/,
    );
    expect(() => checkedToken('GH_TOKEN', `ghp_abc\ndef`)).toThrow(/^GH_TOKEN contains a newline:/);
    // Never the value itself.
    try {
      requireGithubToken({ GITHUB_TOKEN: `${PAT}\n` });
    } catch (err) {
      expect((err as Error).message).not.toContain(PAT);
    }
  });

  it('control characters and surrounding whitespace are refused too; a clean token passes', () => {
    expect(tokenTextProblem(`${PAT}\r`)).toBe('contains a newline (at its end)');
    expect(tokenTextProblem(`${PAT}\u0000`)).toBe('contains a control character');
    expect(tokenTextProblem(`${PAT}\u001b[0m`)).toBe('contains a control character');
    expect(tokenTextProblem(`\t${PAT}`)).toBe('starts or ends with whitespace');
    expect(tokenTextProblem(` ${PAT}`)).toBe('starts or ends with whitespace');
    expect(tokenTextProblem('ghp_a b')).toBe('contains whitespace');
    expect(tokenTextProblem(PAT)).toBeUndefined();
    expect(checkedToken('gh auth token', PAT)).toBe(PAT);
    expect(() => checkedToken('gh auth token', `${PAT} `)).toThrow(
      /^the token `gh auth token` printed starts or ends with whitespace: .*gh auth login/,
    );
    expect(() => checkedToken('ISSUELOOP_PROJECTS_TOKEN', `${PAT}\n`)).toThrow(
      /^ISSUELOOP_PROJECTS_TOKEN contains a newline/,
    );
  });
});

describe('gh auth token, from a scripted gh on PATH', () => {
  let gh: ScriptedGh;
  let root: string;
  beforeAll(async () => {
    gh = await scriptedGh(`${GH}\n`);
    root = await mkdtemp(join(tmpdir(), 'issueloop-target-'));
  });
  afterAll(async () => {
    await gh.cleanup();
    await rm(root, { recursive: true, force: true });
  });

  it("asks gh for the API's host and drops gh's line end", async () => {
    expect(ghHost({})).toBe('github.com');
    expect(ghHost({ GITHUB_API_URL: 'https://api.github.com' })).toBe('github.com');
    expect(ghHost({ GITHUB_API_URL: 'https://ghe.example.com/api/v3' })).toBe('ghe.example.com');
    expect(await ghAuthToken({ PATH: gh.path }, 'ghe.example.com')).toBe(GH);
    expect((await gh.calls()).at(-1)).toBe('auth token --hostname ghe.example.com');
  });

  it('no gh on PATH is no token, not a failure', async () => {
    expect(await ghAuthToken({ PATH: join(root, 'nothing-here') }, 'github.com')).toBeUndefined();
  });

  it("a logged-out gh is no token; the message says how to get one, gh's way included", async () => {
    const out = await scriptedGh(undefined);
    try {
      const { config } = await loadConfig({ cwd: root, env: {} });
      const target = await resolveGitHubTarget({
        env: { PATH: out.path },
        config,
        cwd: root,
        redact,
        gh: true,
      });
      expect(await out.calls()).toEqual(['auth token --hostname github.com']);
      expect(target.token).toBeUndefined();
      expect(() => requireGithubToken(targetEnv({}, target))).toThrow(
        /no GitHub token: export GH_TOKEN or GITHUB_TOKEN, or log in with `gh auth login`/,
      );
    } finally {
      await out.cleanup();
    }
  });

  it('takes the token of gh only when no variable holds one, and never in GitHub Actions', async () => {
    const { config } = await loadConfig({ cwd: root, env: {} });
    const before = (await gh.calls()).length;
    const fromGh = await resolveGitHubTarget({ env: { PATH: gh.path }, config, cwd: root, redact, gh: true });
    expect(fromGh).toMatchObject({ token: GH, tokenSource: 'gh auth token' });
    // The wiring reads it as GH_TOKEN: scrubbed from the agent, redacted, like a variable's.
    expect(targetEnv({ PATH: gh.path }, fromGh).GH_TOKEN).toBe(GH);
    const fromEnv = await resolveGitHubTarget({
      env: { PATH: gh.path, GITHUB_TOKEN: PAT },
      config,
      cwd: root,
      redact,
      gh: true,
    });
    expect(fromEnv).toMatchObject({ token: PAT, tokenSource: 'GITHUB_TOKEN' });
    const inActions = await resolveGitHubTarget({
      env: { PATH: gh.path, GITHUB_ACTIONS: 'true' },
      config,
      cwd: root,
      redact,
      gh: true,
    });
    expect(inActions.token).toBeUndefined();
    // The action's wiring never asks at all.
    const action = await resolveGitHubTarget({ env: { PATH: gh.path }, config, cwd: root, redact });
    expect(action.token).toBeUndefined();
    expect((await gh.calls()).length).toBe(before + 1);
  });

  it('with a GitHub App configured, no token is looked for: gh is not asked, the App is the one credential', async () => {
    const env = { PATH: gh.path, ISSUELOOP_APP_ID: '4242' };
    const { config } = await loadConfig({ cwd: root, env });
    const before = (await gh.calls()).length;
    const target = await resolveGitHubTarget({ env, config, cwd: root, redact, gh: true });
    expect(target.token).toBeUndefined();
    expect(target.tokenSource).toBeUndefined();
    expect((await gh.calls()).length).toBe(before);
    // Without the App, the same lookup asks gh (the anchor: gh would have answered).
    const { config: plain } = await loadConfig({ cwd: root, env: {} });
    const asked = await resolveGitHubTarget({
      env: { PATH: gh.path },
      config: plain,
      cwd: root,
      redact,
      gh: true,
    });
    expect(asked).toMatchObject({ token: GH, tokenSource: 'gh auth token' });
    expect((await gh.calls()).length).toBe(before + 1);
  });

  it('a gh token with a newline inside is named as coming from gh', async () => {
    const broken = await scriptedGh(`gho_abc\ndef\n`);
    try {
      const { config } = await loadConfig({ cwd: root, env: {} });
      await expect(
        resolveGitHubTarget({ env: { PATH: broken.path }, config, cwd: root, redact, gh: true }),
      ).rejects.toThrow(/^the token `gh auth token` printed contains a newline/);
    } finally {
      await broken.cleanup();
    }
  });
});

describe('the repository: flags > ISSUELOOP_REPO > GH_REPO > the file > GITHUB_REPOSITORY > origin', () => {
  let clone: string;
  beforeAll(async () => {
    clone = await mkdtemp(join(tmpdir(), 'issueloop-target-repo-'));
    execFileSync('git', ['init', '-q', clone]);
    execFileSync('git', ['remote', 'add', 'origin', 'git@github.com:acme/widgets.git'], { cwd: clone });
  });
  afterAll(() => rm(clone, { recursive: true, force: true }));

  async function repoOf(env: Record<string, string>, flag?: string) {
    const loaded = await loadConfig({
      cwd: clone,
      env,
      flags: { repo: flag === undefined ? undefined : { value: flag, flag: '--repo' } },
    });
    const target = await resolveGitHubTarget({
      env,
      config: loaded.config,
      ...(loaded.repoSource ? { repoSource: loaded.repoSource } : {}),
      cwd: clone,
      redact,
      token: false,
    });
    return [target.repo, target.repoSource];
  }

  it('falls back on the origin remote, and each source above it wins in turn', async () => {
    expect(await repoOf({})).toEqual(['acme/widgets', 'the origin remote']);
    expect(await repoOf({ GITHUB_REPOSITORY: 'ci/repo' })).toEqual(['ci/repo', 'env GITHUB_REPOSITORY']);
    expect(await repoOf({ GITHUB_REPOSITORY: 'ci/repo', GH_REPO: 'gh/repo' })).toEqual([
      'gh/repo',
      'env GH_REPO',
    ]);
    expect(await repoOf({ GH_REPO: 'github.com/gh/repo' })).toEqual(['gh/repo', 'env GH_REPO']);
    expect(await repoOf({ GH_REPO: 'gh/repo', ISSUELOOP_REPO: 'il/repo' })).toEqual([
      'il/repo',
      'env ISSUELOOP_REPO',
    ]);
    expect(await repoOf({ GH_REPO: 'gh/repo', ISSUELOOP_REPO: 'il/repo' }, 'flag/repo')).toEqual([
      'flag/repo',
      '--repo',
    ]);
  });
});
