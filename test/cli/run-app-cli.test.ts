import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { APP_ID, INSTALLATION_ID, installedApp } from '../helpers/github-app.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

const ARGS = [
  'run',
  '--repo',
  'octo-org/widgets',
  '--set',
  'empty_rounds=1',
  '--set',
  'poll_interval=1s',
  '--set',
  'verify.command=grep -q "\'hello\'" greet.js',
  '--set',
  'log_level=warn',
];

const fixTypo = reply.toolUse([
  {
    name: 'str_replace_based_edit_tool',
    input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
  },
]);

/** The run's environment with a GitHub App in place of GITHUB_TOKEN, its key as escaped single-line PEM. */
async function appEnv(more: Parameters<typeof installedApp>[1] = {}) {
  const app = installedApp(run.github, more);
  const { env } = await run.start((request) =>
    request.messages.length === 1 ? fixTypo : reply.text('Fixed the typo.'),
  );
  const { GITHUB_TOKEN: _none, ...rest } = env;
  const key = app.privateKeyPem.trim().replace(/\n/g, '\\n');
  return { app, env: { ...rest, ISSUELOOP_APP_ID: String(APP_ID), ISSUELOOP_APP_PRIVATE_KEY: key } };
}

const member = {
  body: 'greet() says helo',
  author: 'octocat',
  authorAssociation: 'MEMBER' as const,
  labels: ['issueloop'],
};

describe('issueloop run with a GitHub App', () => {
  it('resolves an issue with the App tokens, committing as its bot, no key or token in the output', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { app, env } = await appEnv();
    const result = await runInProcess(ARGS, { cwd: run.fx.checkout, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('resolved 1, failed 0');
    const who = run.fx.git(
      run.fx.root,
      '--git-dir',
      run.fx.origin,
      'log',
      '-1',
      '--format=%an <%ae>',
      `issueloop/issue-${number}`,
    );
    expect(who).toBe(`issueloop-test[bot] <${app.botId}+issueloop-test[bot]@users.noreply.github.com>`);
    expect(run.github.pulls()[0]?.user.login).toBe('issueloop-test[bot]');
    const keyLine = app.privateKeyPem.split('\n')[3] ?? 'missing';
    for (const text of [result.stdout, result.stderr]) expect(text).not.toContain(keyLine);
  });

  it('an App not installed on the repository is a run-level failure naming the fix: exit 1, no issue charged', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { env } = await appEnv({ installations: [{ id: 5, account: 'someone-else' }] });
    const result = await runInProcess(ARGS, { cwd: run.fx.checkout, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GitHub App 4242 is not installed on octo-org\/widgets/);
    expect(result.stderr).toMatch(/install the App on octo-org\/widgets/);
    const claimsFile = join(run.fx.checkout, '.issueloop', 'claims.json');
    const claims = existsSync(claimsFile) ? JSON.parse(await readFile(claimsFile, 'utf8')) : { issues: {} };
    expect(claims.issues[String(number)]).toBeUndefined();
    expect(run.github.pulls()).toEqual([]);
  });

  it('a suspended installation is a run-level failure naming the fix: exit 1', {
    timeout: 60_000,
  }, async () => {
    run.github.addIssue({ title: 'Greeting typo', ...member });
    const { env } = await appEnv({
      installations: [{ id: INSTALLATION_ID, account: 'octo-org', suspended: true }],
    });
    const result = await runInProcess(ARGS, { cwd: run.fx.checkout, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /installation on octo-org is suspended.*unsuspend it in the settings of octo-org/s,
    );
  });

  it('an App id without its key is refused before anything starts: exit 2 naming the variable', async () => {
    const { env } = await appEnv();
    const { ISSUELOOP_APP_PRIVATE_KEY: _key, ...withoutKey } = env;
    const result = await runInProcess(ARGS, { cwd: run.fx.checkout, env: withoutKey });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ISSUELOOP_APP_PRIVATE_KEY is not set');
  });
});
