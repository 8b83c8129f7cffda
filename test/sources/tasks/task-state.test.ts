import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimView } from '../../../src/claims/claim-store.js';
import { CorruptStateError } from '../../../src/core/errors.js';
import { parseTaskFile } from '../../../src/sources/tasks/task-file.js';
import {
  emptyThreads,
  readThreads,
  reportTask,
  taskFileSlug,
  taskKey,
  taskStateDir,
  taskStatus,
  writeThreads,
} from '../../../src/sources/tasks/task-state.js';
import { claimView } from '../../helpers/claim-view.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');

const view = claimView;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-task-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('task state', () => {
  it('a task id maps to a positive whole number that fits a claim key, the same every time', () => {
    expect(taskKey('000000000000')).toBe(1);
    expect(taskKey('ffffffffffff')).toBe(2 ** 48);
    expect(Number.isSafeInteger(taskKey('ffffffffffff'))).toBe(true);
    const [a, b] = parseTaskFile('## G\n- one\n- two\n').tasks;
    expect(taskKey(a?.id ?? '')).not.toBe(taskKey(b?.id ?? ''));
  });

  it('a task file gets a branch-safe slug and its own state directory per absolute path', () => {
    expect(taskFileSlug('/x/My Plan (v2).md')).toBe('my-plan-v2');
    expect(taskFileSlug('/x/---.md')).toBe('tasks');
    expect(taskStateDir('/s', '/a/tasks.md')).toMatch(/^\/s\/tasks\/tasks-[0-9a-f]{8}$/);
    expect(taskStateDir('/s', '/a/tasks.md')).not.toBe(taskStateDir('/s', '/b/tasks.md'));
  });

  it("maps a claim record to seed 001's states, plus running and needs a human", () => {
    const live = { token: 1, owner: 'h:1', issue: 1, claimed_at: '', expires_at: '2026-11-22T11:00:00Z' };
    expect(taskStatus(undefined, NOW)).toBe('pending');
    expect(taskStatus(view({ lease: live as ClaimView['lease'] }), NOW)).toBe('running');
    expect(taskStatus(view({ last_outcome: 'resolved' }), NOW)).toBe('completed');
    expect(taskStatus(view({ last_outcome: 'interrupted' }), NOW)).toBe('interrupted');
    expect(taskStatus(view({ last_outcome: 'no_changes', failure_count: 1 }), NOW)).toBe('failed');
    expect(taskStatus(view({ last_outcome: 'no_changes', failure_count: 3, needs_human: true }), NOW)).toBe(
      'needs_human',
    );
    expect(taskStatus(view({ attempts: 0 }), NOW)).toBe('pending');
  });

  it('reports the interrupted context and time only for an interrupted task, and the last failure', () => {
    const task = parseTaskFile('## G\n<!-- engine: claude-code -->\n- one\n').tasks[0];
    if (!task) throw new Error('no task');
    const threads = emptyThreads('tasks.md');
    threads.tasks[task.id] = { engine: 'claude-code', session_id: 'abc', updated_at: '' };
    const interrupted = reportTask(
      task,
      view({ last_outcome: 'interrupted', interrupted_at: '2026-11-22T09:00:00Z', partial_context: 'tail' }),
      threads,
      'native',
      NOW,
    );
    expect(interrupted).toMatchObject({
      status: 'interrupted',
      engine: 'claude-code',
      session_id: 'abc',
      interrupted_at: '2026-11-22T09:00:00Z',
      partial_context: 'tail',
    });
    const failed = reportTask(
      task,
      view({
        last_outcome: 'verify_failed',
        failure_count: 1,
        interrupted_at: '2026-11-22T08:00:00Z',
        partial_context: 'old',
        failure_reasons: [{ at: '', error_class: 'verify_failed', message: 'npm test failed' }],
      }),
      threads,
      'native',
      NOW,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      interrupted_at: null,
      partial_context: null,
      last_failure: 'verify_failed: npm test failed',
    });
  });

  it('threads.json round-trips; a missing one is empty; a corrupt one is reported, not overwritten', async () => {
    expect(await readThreads(dir, 'tasks.md')).toEqual(emptyThreads('tasks.md'));
    const threads = emptyThreads('tasks.md');
    threads.groups.G = {
      engine: 'claude-code',
      session_id: 's',
      tokens: 10,
      cost_usd: 0.25,
      summary: null,
      updated_at: 'now',
      rev: 1,
    };
    await writeThreads(dir, threads);
    expect(await readThreads(dir, 'tasks.md')).toEqual(threads);
    // A file from before the session's cost was kept reads as a session that cost nothing yet.
    await writeFile(
      join(dir, 'threads.json'),
      '{"version":1,"task_file":"tasks.md","groups":{"G":{"engine":"claude-code","session_id":"s","tokens":10,"summary":null,"updated_at":"now"}},"tasks":{}}',
    );
    expect((await readThreads(dir, 'tasks.md')).groups.G?.cost_usd).toBe(0);

    await writeFile(join(dir, 'threads.json'), '{"version":1,');
    await expect(readThreads(dir, 'tasks.md')).rejects.toThrow(CorruptStateError);
    await expect(readThreads(dir, 'tasks.md')).rejects.toThrow('issueloop reset --tasks tasks.md');
    await writeFile(
      join(dir, 'threads.json'),
      '{"version":1,"task_file":"t","groups":{"G":{"engine":"gpt"}},"tasks":{}}',
    );
    await expect(readThreads(dir, 'tasks.md')).rejects.toThrow(/groups\.G\.engine/);
  });
});
