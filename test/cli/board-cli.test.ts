import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';

const TOKEN = `ghp_${'B0ard'.repeat(8)}`;
let dir: string;
let emulator: GitHubEmulator;
let github: { url: string; close(): Promise<void> };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-board-'));
  emulator = createGitHubEmulator({ owner: 'acme', repo: 'widgets' });
  emulator.addToken(TOKEN, { login: 'maintainer', kind: 'classic', scopes: ['repo', 'project'] });
  github = await emulator.listen();
});
afterAll(async () => {
  await github.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url });

describe('issueloop board init', () => {
  it("regression: ISSUELOOP_PROJECTS_TOKEN is the board's credential, not an unknown setting (it was exit 2)", async () => {
    const cwd = await mkdtemp(join(dir, 'projects-token-'));
    const actionsToken = `ghs_${'a'.repeat(36)}`;
    emulator.addToken(actionsToken, { login: 'github-actions[bot]', kind: 'installation' });
    const result = await runBuiltCli(
      ['board', 'init', '--create', '--owner', 'acme', '--title', 'Board by projects token'],
      {
        cwd,
        env: { GITHUB_TOKEN: actionsToken, ISSUELOOP_PROJECTS_TOKEN: TOKEN, GITHUB_API_URL: github.url },
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^created project "Board by projects token"/);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    // Without it, the Actions token alone cannot reach Projects v2.
    const without = await runInProcess(
      ['board', 'init', '--create', '--owner', 'acme', '--title', 'Board by actions token'],
      {
        cwd: await mkdtemp(join(dir, 'actions-token-')),
        env: { GITHUB_TOKEN: actionsToken, GITHUB_API_URL: github.url },
      },
    );
    expect(without.code).not.toBe(0);
    expect(without.code).not.toBe(2);
  });

  it('creates the board when asked, adds the missing status options, and saves the resolved ids', async () => {
    const cwd = await mkdtemp(join(dir, 'create-'));
    const result = await runInProcess(
      ['board', 'init', '--create', '--owner', 'acme', '--title', 'Agent board'],
      {
        cwd,
        env: env(),
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^created project "Agent board" \(#\d+\) of acme/);
    expect(result.stdout).toContain('added status options: In Review, Needs human');
    expect(result.stdout).toMatch(/set project\.number: \d+/);
    const saved = JSON.parse(await readFile(join(cwd, '.issueloop', 'board.json'), 'utf8'));
    expect(saved.resolved.options.map((o: { name: string }) => o.name)).toEqual([
      'Todo',
      'In Progress',
      'Done',
      'In Review',
      'Needs human',
    ]);
    expect(result.stdout).not.toContain(TOKEN);
  });

  it('refuses to rewrite the options of a board with items unless --force, and says why (exit 1)', async () => {
    const cwd = await mkdtemp(join(dir, 'refuse-'));
    const { number } = emulator.addProject({ title: 'Busy', statusOptions: ['Todo', 'Done'] });
    const issue = emulator.addIssue({ title: 'x', author: 'maintainer', authorAssociation: 'OWNER' });
    await writeFile(
      join(cwd, 'issueloop.config.yaml'),
      `repo: acme/widgets\nproject:\n  owner: acme\n  number: ${number}\n`,
    );
    // Put one item on the board through the API, as a run would.
    const node = emulator.issue(issue)?.node_id;
    await fetch(`${github.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation($p:ID!,$c:ID!){ addProjectV2ItemById(input:{projectId:$p, contentId:$c}){ item { id } } }',
        variables: { p: emulator.project(number)?.id, c: node },
      }),
    });
    const refused = await runInProcess(['board', 'init'], { cwd, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'missing status options: In Progress (working), In Review (review), Needs human (blocked)',
    );
    expect(refused.stdout).toMatch(/not changed: .*new id and clears the Status of all 1 items.*--force/);
    expect(emulator.project(number)?.options.map((o) => o.name)).toEqual(['Todo', 'Done']);
    const forced = await runInProcess(['board', 'init', '--force', '--json'], { cwd, env: env() });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ added: ['In Progress', 'In Review', 'Needs human'] });
  });

  it('without a board or a token it is a usage error naming the fix (exit 2)', async () => {
    const cwd = await mkdtemp(join(dir, 'usage-'));
    const noBoard = await runInProcess(['board', 'init'], { cwd, env: env() });
    expect(noBoard.code).toBe(2);
    expect(noBoard.stderr).toContain('no board configured: set project.owner and project.number');
    const noToken = await runInProcess(['board', 'init', '--owner', 'acme', '--title', 'T'], { cwd });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('export GH_TOKEN or GITHUB_TOKEN');
  });

  it('regression: with a GitHub App and no repository it says the App needs one, not "not installed on acme/-"', async () => {
    const cwd = await mkdtemp(join(dir, 'app-'));
    const result = await runInProcess(['board', 'init', '--owner', 'acme', '--title', 'T'], {
      cwd,
      env: { GITHUB_API_URL: github.url, ISSUELOOP_APP_ID: '4242', ISSUELOOP_APP_PRIVATE_KEY: 'app.pem' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'board init with a GitHub App needs the repository the App is installed on',
    );
    expect(result.stderr).toContain('pass -R owner/name');
    expect(result.stderr).not.toContain('acme/-');
  });
});
