import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { TERMINAL_ACTS } from '../helpers/terminal-acts.js';
import { useRunFixture } from './run-fixture.js';

/**
 * Issue 29, item 8: what a person reads in a terminal strips control sequences and bidi characters
 * from text that came from GitHub, the model or the ledger. Each command here prints such a text
 * holding an OSC that sets the terminal's title, a CSI that clears the screen and a right-to-left
 * override: the text output keeps the words and none of those characters; `--json` keeps the data
 * whole, written as `\uXXXX` escapes (a terminal shows them as text; they parse back the same).
 */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u202e';
const TOKEN = `ghp_${'T3rm'.repeat(9)}`;

/** The words stay, the terminal's acts go (the OSC whole, its `pwned` with it). */
function expectShownAsText(output: string, words: string) {
  expect(output).toContain(words);
  expect(output).not.toMatch(TERMINAL_ACTS);
  expect(output).not.toContain('pwned');
}

/** JSON output: no raw control or bidi character, and `value` parses back whole. */
function expectEscapedJson(output: string, value: string) {
  expect(output).not.toMatch(TERMINAL_ACTS);
  expect(output).toContain('\\u001b]0;pwned\\u0007\\u001b[2J\\u202e');
  expect(JSON.stringify(JSON.parse(output))).toContain(JSON.stringify(value).slice(1, -1));
}

describe('board and doctor show a project title from GitHub as text', () => {
  const title = `Agent board ${HOSTILE}end`;
  let dir: string;
  let emulator: GitHubEmulator;
  let github: { url: string; close(): Promise<void> };
  const env = () => ({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'issueloop-terminal-'));
    emulator = createGitHubEmulator({ owner: 'acme', repo: 'widgets' });
    emulator.addToken(TOKEN, { login: 'maintainer', kind: 'classic', scopes: ['repo', 'project'] });
    emulator.setPermission('maintainer', 'write');
    emulator.addLabel('issueloop');
    const statusOptions = ['Todo', 'In Progress', 'In Review', 'Done', 'Needs human'];
    emulator.addProject({ title, number: 7, statusOptions });
    github = await emulator.listen();
    await writeFile(
      join(dir, 'issueloop.config.yaml'),
      'repo: acme/widgets\nproject:\n  owner: acme\n  number: 7\n',
    );
  });
  afterAll(async () => {
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('board init: the found project', async () => {
    const text = await runInProcess(['board', 'init'], { cwd: dir, env: env() });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expectShownAsText(text.stdout, 'found project "Agent board end" (#7)');
    const json = await runInProcess(['board', 'init', '--json'], { cwd: dir, env: env() });
    expect(json.code).toBe(0);
    expectEscapedJson(json.stdout, title);
  });

  it('doctor: the project check', async () => {
    const text = await runInProcess(['doctor'], { cwd: dir, env: env() });
    expectShownAsText(text.stdout, '"Agent board end" (#7');
    expect(text.stderr).not.toMatch(TERMINAL_ACTS);
    const json = await runInProcess(['doctor', '--json'], { cwd: dir, env: env() });
    expectEscapedJson(json.stdout, title);
  });
});

describe('run shows an issue title and a failure from the repository as text', () => {
  const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });
  const member = {
    body: 'greet() says helo',
    author: 'octocat',
    authorAssociation: 'MEMBER' as const,
    labels: ['issueloop'],
  };
  const args = ['run', '--repo', 'octo-org/widgets', '--set', 'empty_rounds=1', '--set', 'log_level=warn'];

  it('run --dry-run: the issue title', { timeout: 30_000 }, async () => {
    const number = run.github.addIssue({ title: `Greeting ${HOSTILE}typo`, ...member });
    const { env } = await run.start(() => reply.text('never asked'));
    const text = await runInProcess([...args, '--dry-run'], { cwd: run.fx.checkout, env });
    expect(text.code).toBe(0);
    // An issue title is cleaned where it is read (sanitizeIssueTitle: escape sequences go whole, the
    // bidi override goes), for the prompt, the PR and the terminal alike.
    expect(text.stdout).toContain(`#${number} Greeting typo\n`);
    expect(text.stdout).not.toMatch(TERMINAL_ACTS);
    const json = await runInProcess([...args, '--dry-run', '--json'], { cwd: run.fx.checkout, env });
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(TERMINAL_ACTS);
    expect(json.stdout).toContain('"title": "Greeting typo"');
  });

  it("the run summary (renderRunSummary): the model's error in a session's reason", {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const message = `bad request ${HOSTILE}from the API`;
    const { env } = await run.start(() => ({
      error: { status: 400, type: 'invalid_request_error', message },
    }));
    const text = await runInProcess([...args, '--once'], { cwd: run.fx.checkout, env });
    expect(text.stdout).toMatch(new RegExp(`#${number} +error:invalid_request`));
    expectShownAsText(text.stdout, 'bad request');
    expect(text.stderr).not.toMatch(TERMINAL_ACTS);
    const json = await runInProcess([...args, '--once', '--json'], { cwd: run.fx.checkout, env });
    expect(json.stdout).not.toMatch(TERMINAL_ACTS);
    expect(JSON.parse(json.stdout).reports[0].outcome).toBe('error:invalid_request');
    expect(JSON.parse(json.stdout).reports[0].reason).toContain('bad request');
  });
});
