import { afterEach, describe, expect, it } from 'vitest';
import type { ProjectConfig } from '../../src/config/schema.js';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { openBoard } from '../../src/github/board/board.js';
import { initBoard } from '../../src/github/board/board-init.js';
import { createTempStateDirs } from '../claims/temp-state-dirs.js';
import { BOARD_COLUMNS, boardEmulator, memberIssue } from '../helpers/world.js';
import { BASE, emulated, emulatedClient } from './emulated.js';

const dirs = createTempStateDirs();
afterEach(() => dirs.cleanup());

async function boardSetup(options: { statusOptions?: string[]; token?: string } = {}) {
  const world = boardEmulator(options.statusOptions ? { columns: options.statusOptions } : {});
  const e = await emulated(await dirs.make(), {
    emulator: world.emulator,
    config: world.config,
    ...(options.token ? { token: options.token } : {}),
  });
  const n = world.emulator.addIssue(memberIssue('Fix it', { author: 'm', authorAssociation: 'OWNER' }));
  const [issue] = (await e.adapter.listBacklog()).issues;
  if (!issue || !e.adapter.board) throw new Error('setup');
  return {
    e,
    board: e.adapter.board,
    issue,
    n,
    projectNumber: world.project.number,
    statusOf: world.statusOf,
  };
}

describe('Projects v2 board', () => {
  it('adds the issue and moves it through the phases; ids are resolved once and cached on disk', async () => {
    const { e, board, issue, statusOf } = await boardSetup();
    e.emulator.resetRequests();
    expect(await board.setStatus(issue, 'working')).toEqual({ ok: true });
    expect(statusOf(issue.number)).toBe('In Progress');
    expect(e.emulator.requests.map((r) => r.operationName)).toEqual([
      'ResolveProject',
      'AddItem',
      'SetStatus',
    ]);
    e.emulator.resetRequests();
    expect(await board.setStatus(issue, 'review')).toEqual({ ok: true });
    expect(statusOf(issue.number)).toBe('In Review');
    expect(e.emulator.requests.map((r) => r.operationName)).toEqual(['SetStatus']);
    // A new process reads the ids from board.json: no GraphQL query to resolve or add again.
    const again = await e.reopen();
    e.emulator.resetRequests();
    expect(await again.board?.setStatus(issue, 'done')).toEqual({ ok: true });
    expect(e.emulator.requests.map((r) => r.operationName)).toEqual(['SetStatus']);
  });

  it('ensureItem is idempotent', async () => {
    const { e, board, issue, projectNumber } = await boardSetup();
    const a = await board.ensureItem(issue);
    const fresh = await openBoard(emulatedClient(e.emulator), { project: e.config.project as ProjectConfig });
    expect(await fresh.ensureItem(issue)).toBe(a);
    expect(e.emulator.project(projectNumber)?.items).toHaveLength(1);
  });

  it('stale option ids (options rewritten on GitHub) re-resolve once and the move succeeds', async () => {
    const { e, board, issue, statusOf } = await boardSetup();
    await board.setStatus(issue, 'working');
    // Someone edits the options on github.com: every option id changes.
    const base = e.config.project as ProjectConfig;
    const renamed = { ...base, statuses: { ...base.statuses, blocked: 'Blocked' } };
    const rewrite = await initBoard(e.client, renamed, (p) => openBoard(e.client, { project: p }), {
      create: false,
      force: true,
    });
    expect(rewrite.added).toEqual(['Blocked']);
    e.emulator.resetRequests();
    expect(await board.setStatus(issue, 'review')).toEqual({ ok: true });
    expect(statusOf(issue.number)).toBe('In Review');
    expect(e.emulator.requests.map((r) => r.operationName)).toEqual([
      'SetStatus',
      'ResolveProject',
      'AddItem',
      'SetStatus',
    ]);
  });

  it('a board failure never throws: it is recorded and retried next round', async () => {
    const { e, board, issue, statusOf } = await boardSetup();
    await board.resolve();
    e.emulator.failGraphql({
      operation: 'AddItem',
      errors: [{ type: 'INTERNAL', message: 'Something went wrong while executing your query.' }],
      times: 10,
    });
    const move = await board.setStatus(issue, 'working');
    expect(move.ok).toBe(false);
    expect(board.pending()[String(issue.number)]).toMatchObject({ phase: 'working', attempts: 1 });
    expect(e.log.some((l) => l.level === 'warn' && /retried next round/.test(l.msg ?? ''))).toBe(true);
    e.emulator.resetRequests();
    e.emulator.failGraphql({ operation: 'AddItem', errors: [], times: 0 });
    const fresh = await createRetryBoard(e);
    await expect(fresh.retryPending()).resolves.toMatchObject({ retried: 1 });
    expect(statusOf(issue.number)).toBe('In Progress');
    expect(fresh.pending()).toEqual({});
  });

  it('a missing option is reported with the fix, not thrown', async () => {
    const { board, issue } = await boardSetup({ statusOptions: ['Todo', 'In Progress', 'Done'] });
    const move = await board.setStatus(issue, 'review');
    expect(move).toEqual({
      ok: false,
      error: expect.stringMatching(/no option "In Review".*issueloop board init/),
    });
  });

  it('an Actions token is told which token Projects v2 needs', async () => {
    const emulator = createGitHubEmulator({ baseUrl: BASE });
    emulator.addToken('ghs_actions000000000000000000000000000', {
      login: 'github-actions[bot]',
      kind: 'installation',
    });
    const { number } = emulator.addProject({ title: 'Backlog' });
    const e = await emulated(await dirs.make(), {
      emulator,
      token: 'ghs_actions000000000000000000000000000',
      config: { project: { owner: 'octo-org', number } },
    });
    await expect(e.adapter.board?.resolve()).rejects.toThrow(
      /classic token with the `project` scope.*the Actions GITHUB_TOKEN cannot access Projects v2/,
    );
  });

  it('a wrong project number names the setting to check', async () => {
    const emulator = createGitHubEmulator({ baseUrl: BASE });
    const e = await emulated(await dirs.make(), {
      emulator,
      config: { project: { owner: 'octo-org', number: 99 } },
    });
    await expect(e.adapter.board?.resolve()).rejects.toThrow(/project\.number/);
  });

  it('finds the board by exact title', async () => {
    const emulator = createGitHubEmulator({ baseUrl: BASE });
    emulator.addProject({ title: 'Backlog (old)' });
    const { number } = emulator.addProject({ title: 'Backlog' });
    const e = await emulated(await dirs.make(), {
      emulator,
      config: { project: { owner: 'octo-org', title: 'Backlog' } },
    });
    expect((await e.adapter.board?.resolve())?.number).toBe(number);
  });
});

async function createRetryBoard(e: Awaited<ReturnType<typeof boardSetup>>['e']) {
  const again = await e.reopen();
  if (!again.board) throw new Error('no board');
  return again.board;
}

describe('board init', () => {
  it('reports missing options and refuses to rewrite them on a board with items, unless forced', async () => {
    const { e, board, issue, projectNumber } = await boardSetup({
      statusOptions: ['Todo', 'In Progress', 'Done'],
    });
    await board.setStatus(issue, 'working');
    const project = e.config.project as ProjectConfig;
    const open = (p: ProjectConfig) => openBoard(e.client, { project: p });
    const refused = await initBoard(e.client, project, open, { create: false, force: false });
    expect(refused.missing.map((m) => m.name)).toEqual(['In Review', 'Needs human']);
    expect(refused.refused).toMatch(/new id and clears the Status of all 1 items.*--force/);
    expect(e.emulator.project(projectNumber)?.options.map((o) => o.name)).toEqual([
      'Todo',
      'In Progress',
      'Done',
    ]);
    const forced = await initBoard(e.client, project, open, { create: false, force: true });
    expect(forced.added).toEqual(['In Review', 'Needs human']);
    expect(e.emulator.project(projectNumber)?.options.map((o) => o.name)).toEqual([
      'Todo',
      'In Progress',
      'Done',
      'In Review',
      'Needs human',
    ]);
  });

  it('creates the project when asked and adds the options to the empty board', async () => {
    const emulator = createGitHubEmulator({ baseUrl: BASE });
    const e = await emulated(await dirs.make(), {
      emulator,
      config: { project: { owner: 'octo-org', title: 'issueloop board' } },
    });
    const project = e.config.project as ProjectConfig;
    const open = (p: ProjectConfig) => openBoard(e.client, { project: p });
    await expect(initBoard(e.client, project, open, { create: false, force: false })).rejects.toThrow(
      /board init --create/,
    );
    const report = await initBoard(e.client, project, open, { create: true, force: false });
    expect(report).toMatchObject({ created: true, added: ['In Review', 'Needs human'] });
    expect(emulator.project(report.project.number)?.options.map((o) => o.name)).toEqual(
      BOARD_COLUMNS.filter((x) => x !== 'In Review' && x !== 'Needs human').concat([
        'In Review',
        'Needs human',
      ]),
    );
  });
});
