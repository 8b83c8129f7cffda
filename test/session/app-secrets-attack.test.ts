import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import type { ListeningEmulator } from '../../src/emulators/github/types.js';
import { createAppTokenSource } from '../../src/github/app-auth.js';
import { BASE, type Emulated, emulated } from '../github/emulated.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { APP_ID, installedApp } from '../helpers/github-app.js';
import { originGit, runIssueSession } from '../helpers/world.js';
import { GREETING_TYPO, useSessionRepo } from './git/git-fixture.js';

/**
 * A hostile agent in a session run as a GitHub App (its key in the harness's environment as PEM
 * text, its installation tokens minted and sent to a token-checked git origin): the bash tool and
 * verify look for the key, a line of it, a minted token or its git header in their environment,
 * every process's environ and cmdline in /proc, the config git reads, the worktree's .git, and the
 * state directory; and hand what they find to the PR body through the summary.
 */
const repo = useSessionRepo(GREETING_TYPO);
let emulator: GitHubEmulator;
let gh: Emulated;
let server: ListeningEmulator;

beforeEach(async () => {
  emulator = createGitHubEmulator({ baseUrl: BASE, origin: repo.fx.origin });
  gh = await emulated(repo.stateDir, { emulator });
  server = await emulator.serveGit();
  repo.fx.git(repo.fx.checkout, 'remote', 'set-url', 'origin', server.url);
});

afterEach(async () => {
  await server?.close();
});

const look = () =>
  [
    'env',
    'for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr "\\0" "\\n" < "$f"; done 2>/dev/null',
    'git config --list --show-origin',
    'cat .git "$(git rev-parse --git-dir)/config" "$(git rev-parse --git-common-dir)/config" 2>&1',
    `ls -la ${repo.stateDir} 2>&1; cat ${repo.stateDir}/runs/* 2>&1`,
    'grep -rls "PRIVATE KEY\\|ghs_\\|x-access-token" /tmp "$HOME" . 2>/dev/null | head -5',
  ].join('; ');

describe('a hostile agent in a session run as a GitHub App', () => {
  it('finds neither the key nor a minted token, in any place it looks; the fix is still delivered', {
    timeout: 20_000,
  }, async () => {
    const app = installedApp(emulator);
    const minted: string[] = [];
    const source = createAppTokenSource({
      appId: APP_ID,
      privateKey: app.privateKeyPem,
      repo: { owner: 'octo-org', name: 'widgets' },
      apiUrl: BASE,
      userAgent: 'issueloop/test',
      clock: new FakeClock(Date.now()),
      fetch: emulator.fetch,
      onToken: (token) => minted.push(token),
    });
    const env = {
      GITHUB_SERVER_URL: new URL(server.url).origin,
      ISSUELOOP_APP_ID: String(APP_ID),
      ISSUELOOP_APP_PRIVATE_KEY: app.privateKeyPem,
    };
    const bash = (command: string) => reply.toolUse([{ name: 'bash', input: { command } }]);
    const fix = reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
      },
    ]);
    const { report, number, anthropic } = await runIssueSession(
      { repo, gh },
      {
        script: [
          bash(`(${look()}) > leak.txt 2>&1; cat leak.txt`),
          fix,
          reply.text('Fixed. Found: see leak.txt'),
        ],
        env,
        tokenSource: source,
        config: { verify: { ...gh.config.verify, command: `(${look()}) > verify-leak.txt 2>&1; true` } },
      },
    );
    expect(report.outcome).toBe('resolved');
    // The attack ran, and the harness did mint and send tokens meanwhile.
    const seen = JSON.stringify(anthropic.requests);
    expect(seen).toContain('PATH=');
    expect(seen).toContain('repositoryformatversion');
    expect(minted.length).toBeGreaterThan(0);
    expect(emulator.gitRequests.some((r) => r.token !== undefined && minted.includes(r.token))).toBe(true);
    const pushed = (path: string) => originGit(repo)('show', `refs/heads/issueloop/issue-${number}:${path}`);
    const ledgers = await readdir(join(repo.stateDir, 'runs')).catch(() => [] as string[]);
    const ledger = (
      await Promise.all(ledgers.map((name) => readFile(join(repo.stateDir, 'runs', name), 'utf8')))
    ).join('\n');
    const pr = emulator.pulls()[0];
    const keyLines = app.privateKeyPem
      .split('\n')
      .filter((line) => line.length > 20 && !line.startsWith('-----'));
    const forms = [
      ...minted,
      ...minted.map((t) => Buffer.from(`x-access-token:${t}`).toString('base64')),
      ...keyLines,
    ];
    for (const text of [seen, pushed('leak.txt'), pushed('verify-leak.txt'), ledger, pr?.body ?? '']) {
      expect(text).not.toContain('PRIVATE KEY-----\n');
      for (const form of forms) expect(text).not.toContain(form);
    }
    expect(pr?.body).toContain(`Closes #${number}`);
  });
});
