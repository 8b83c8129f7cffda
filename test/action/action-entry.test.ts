import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { useRunFixture } from '../cli/run-fixture.js';
import { runNodeScript } from '../helpers/cli.js';
import { APP_ID, installedApp } from '../helpers/github-app.js';
import { memberIssue } from '../helpers/world.js';
import { fixTheTypo } from './act.js';
import { BUNDLE, inputEnv, labeledPayload, parseOutputFile, writeEvent } from './action-fixture.js';

/**
 * The committed bundle run as the runner runs a `node24` action: a Node process in the workspace,
 * inputs as INPUT_* variables (every declared input, defaults included), the webhook payload at
 * GITHUB_EVENT_PATH, and the summary and output files the runner creates empty beforehand. Two smoke
 * runs of the real bundle; what the action does for each event is tested in-process
 * (run-action.test.ts, action-work.test.ts).
 */
const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });
const tempDirs: string[] = [];
afterEach(async () => {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
  rawOutputs: string;
  apiKey: string;
  anthropicRequests: number;
}

type Script = Parameters<typeof run.start>[0];

async function runBundle(
  event: string,
  payload: unknown,
  inputs: Record<string, string> = {},
  script: Script = fixTheTypo,
): Promise<ActionRun> {
  const { env, anthropic } = await run.start(script);
  const { dir, path } = await writeEvent(payload);
  tempDirs.push(dir);
  const summaryFile = join(dir, 'step_summary.md');
  const outputFile = join(dir, 'output');
  await writeFile(summaryFile, '');
  await writeFile(outputFile, '');
  const apiKey = env.ANTHROPIC_API_KEY as string;
  const childEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...run.fx.env,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: path,
    GITHUB_REPOSITORY: 'octo-org/widgets',
    GITHUB_WORKSPACE: run.fx.checkout,
    GITHUB_API_URL: env.GITHUB_API_URL as string,
    GITHUB_RUN_ID: '4242',
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_OUTPUT: outputFile,
    RUNNER_TEMP: dir,
    ANTHROPIC_BASE_URL: env.ANTHROPIC_BASE_URL as string,
    ISSUELOOP_GITHUB__WRITE_SPACING: env.ISSUELOOP_GITHUB__WRITE_SPACING as string,
    ...(await inputEnv({
      github_token: DEFAULT_TOKEN,
      anthropic_api_key: apiKey,
      verify_command: 'grep -q "\'hello\'" greet.js',
      ...inputs,
    })),
  };
  const result = await runNodeScript(BUNDLE, [], { cwd: run.fx.checkout, env: childEnv });
  const rawOutputs = await readFile(outputFile, 'utf8');
  return {
    ...result,
    summary: await readFile(summaryFile, 'utf8'),
    outputs: parseOutputFile(rawOutputs),
    rawOutputs,
    apiKey,
    anthropicRequests: anthropic.requests.length,
  };
}

/** The tokens reach the runner only in its own mask commands, which come before any other line. */
function expectNoTokens(result: ActionRun): void {
  const lines = result.stdout.split('\n');
  expect(lines.slice(0, 2)).toEqual([`::add-mask::${DEFAULT_TOKEN}`, `::add-mask::${result.apiKey}`]);
  const shown = [...lines.slice(2), result.stderr, result.summary, result.rawOutputs].join('\n');
  for (const secret of [DEFAULT_TOKEN, result.apiKey]) expect(shown).not.toContain(secret);
}

describe('the action bundle, run as GitHub Actions runs it', () => {
  it('a maintainer labels an issue: resolved, summary and outputs written (regression: a second proper-lockfile copy in the bundle made every claim a lost lock)', {
    timeout: 90_000,
  }, async () => {
    const number = run.github.addIssue(memberIssue('Greeting typo'));
    run.github.setPermission('maintainer', 'maintain');
    const result = await runBundle(
      'issues',
      labeledPayload({ number, title: 'Greeting typo', label: 'issueloop', sender: 'maintainer' }),
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/info {3}#\d+ verifying/);
    expect(result.code).toBe(0);
    const pr = run.github.pulls()[0];
    expect(pr?.draft).toBe(true);
    expect(result.outputs).toMatchObject({ outcome: 'resolved', issues_resolved: '1' });
    // The emulator names its pull requests after the address it listens on.
    expect(result.outputs.pr_url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+/octo-org/widgets/pull/${pr?.number}$`),
    );
    expect(Number(result.outputs.cost_usd)).toBeGreaterThan(0);
    expect(result.summary).toContain(`<h2>issueloop: issue #${number}</h2>`);
    expect(result.summary).toContain(`<a href="${result.outputs.pr_url}">#${pr?.number}</a>`);
    expect(result.summary).toMatch(/<td>#\d+<\/td><td>Greeting typo<\/td><td><code>resolved<\/code><\/td>/);
    expect(result.summary).toMatch(/GitHub requests charged/);
    expect(result.stdout).toContain(`::group::#${number} Greeting typo`);
    expect(result.stdout).toContain('::endgroup::');
    expectNoTokens(result);
  });

  it('with the Actions token alone it still works, and warns once, first in the log and the summary, that CI will not run on its PRs', {
    timeout: 90_000,
  }, async () => {
    const actionsToken = 'ghs_jobTokenOfTheActionsApp0000000001';
    run.github.addToken(actionsToken, { login: 'github-actions[bot]', kind: 'installation' });
    const number = run.github.addIssue(memberIssue('Greeting typo'));
    run.github.setPermission('maintainer', 'maintain');
    const result = await runBundle(
      'issues',
      labeledPayload({ number, title: 'Greeting typo', label: 'issueloop', sender: 'maintainer' }),
      { github_token: actionsToken },
    );
    expect(result.code).toBe(0);
    expect(result.outputs.outcome).toBe('resolved');
    const warnings = result.stdout.split('\n').filter((line) => line.startsWith('::warning::'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/CI will not run on issueloop's pull requests/);
    // Before the issue's own log group.
    expect(result.stdout.indexOf('::warning::')).toBeLessThan(result.stdout.indexOf('::group::'));
    expect(result.summary.indexOf('[!WARNING]')).toBeGreaterThan(0);
    expect(result.summary.indexOf('[!WARNING]')).toBeLessThan(result.summary.indexOf('<table>'));
    expect(result.summary).toContain('CI follow-ups: inactive');
    const shown = result.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::'));
    expect([...shown, result.stderr, result.summary].join('\n')).not.toContain(actionsToken.slice(4));
  });

  it('with app_id and app_private_key: resolved as the App, its bot the PR and commits, no CI warning, no line of the key after the masks', {
    timeout: 90_000,
  }, async () => {
    const app = installedApp(run.github);
    // github_token as the runner fills it by default (the job's token): the App wins over it.
    const actionsToken = 'ghs_jobTokenOfTheActionsApp0000000001';
    run.github.addToken(actionsToken, { login: 'github-actions[bot]', kind: 'installation' });
    const number = run.github.addIssue(memberIssue('Greeting typo'));
    run.github.setPermission('maintainer', 'maintain');
    const result = await runBundle(
      'issues',
      labeledPayload({ number, title: 'Greeting typo', label: 'issueloop', sender: 'maintainer' }),
      { app_id: String(APP_ID), app_private_key: app.privateKeyPem, github_token: actionsToken },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.outputs.outcome).toBe('resolved');
    const botLogin = 'issueloop-test[bot]';
    expect(run.github.pulls()[0]?.user.login).toBe(botLogin);
    const bot = `${botLogin} <${app.botId}+${botLogin}@users.noreply.github.com>`;
    const origin = (...args: string[]) => run.fx.git(run.fx.root, '--git-dir', run.fx.origin, ...args);
    const who = origin('log', '--format=%an <%ae>|%cn <%ce>', `main..issueloop/issue-${number}`).split('\n');
    expect(who.length).toBeGreaterThan(0);
    expect(who).toEqual(who.map(() => `${bot}|${bot}`));
    expect(result.stdout).toContain(`::group::#${number} Greeting typo`);
    expect(result.stdout).not.toContain('::warning::');
    expect(result.summary).toMatch(/<table>/);
    expect(result.summary).not.toContain('[!WARNING]');

    // The runner is told the key whole and line by line before anything else; after that, none of it shows.
    const keyLines = app.privateKeyPem
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length >= 16 && !line.startsWith('-----'));
    expect(keyLines.length).toBeGreaterThan(10);
    const lines = result.stdout.split('\n');
    const masks = lines.findIndex((line) => !line.startsWith('::add-mask::'));
    const masked = lines.slice(0, masks).map((line) => line.slice('::add-mask::'.length));
    expect(masked).toEqual(expect.arrayContaining([actionsToken, result.apiKey, ...keyLines]));
    expect(masked).toContain(app.privateKeyPem.trim().replace(/\n/g, '%0A'));
    const shown = [...lines.slice(masks), result.stderr, result.summary, result.rawOutputs].join('\n');
    expect(shown).toContain('resolved');
    expect(shown).not.toContain('PRIVATE KEY');
    for (const line of keyLines) expect(shown).not.toContain(line);
    for (const secret of [actionsToken, result.apiKey]) expect(shown).not.toContain(secret);
    expect(shown).not.toMatch(/ghs_[0-9a-f]{36}/);
  });

  it('an unrelated event does nothing: a notice through the real @actions/core, and a green run', {
    timeout: 30_000,
  }, async () => {
    const pushed = await runBundle('push', {});
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toContain('::notice::issueloop: nothing to do: event "push" starts no work');
    expect(pushed.outputs.outcome).toBe('skipped');
    expectNoTokens(pushed);
  });
});
