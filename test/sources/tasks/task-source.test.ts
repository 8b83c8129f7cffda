import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimView } from '../../../src/claims/claim-store.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createRedactor } from '../../../src/core/redact.js';
import { describeSkip } from '../../../src/scheduler/plan-round.js';
import type { SessionReport } from '../../../src/session/session-report.js';
import { parseTaskFile } from '../../../src/sources/tasks/task-file.js';
import {
  createTaskSource,
  planTasks,
  type TaskItem,
  toTaskItems,
} from '../../../src/sources/tasks/task-source.js';
import { emptyThreads, readThreads } from '../../../src/sources/tasks/task-state.js';
import { claimView } from '../../helpers/claim-view.js';
import { createMemoryLog } from '../../helpers/memory-log.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const FILE = '## Build\n<!-- engine: claude-code -->\n- one\n- two\n## Docs\n- three\n';
const items = toTaskItems(parseTaskFile(FILE).tasks);
const [one, two, three] = items as [TaskItem, TaskItem, TaskItem];

function claim(item: TaskItem, overrides: Partial<ClaimView>): [number, ClaimView] {
  return [item.number, claimView({ issue: item.number, ...overrides })];
}

describe('planTasks: seed 001 order, one task at a time', () => {
  it('a fresh file: the first task is the only candidate, the rest wait for it', () => {
    const plan = planTasks(items, new Map(), NOW);
    expect(plan.candidates).toEqual([one]);
    expect(plan.skipped.map((s) => [s.issue.task.index, describeSkip(s.reason)])).toEqual([
      [2, 'waits for task 1: tasks run in file order'],
      [3, 'waits for task 1: tasks run in file order'],
    ]);
  });

  it('completed and given-up tasks are passed; a failed one is tried again before the next', () => {
    const claims = new Map([
      claim(one, { last_outcome: 'resolved' }),
      claim(two, { last_outcome: 'no_changes', failure_count: 1 }),
    ]);
    expect(planTasks(items, claims, NOW).candidates).toEqual([two]);
    claims.set(...claim(two, { last_outcome: 'no_changes', failure_count: 3, needs_human: true }));
    const plan = planTasks(items, claims, NOW);
    expect(plan.candidates).toEqual([three]);
    expect(plan.skipped.map((s) => s.reason.kind)).toEqual(['completed', 'needs_human']);
  });

  it('a task leased by another process holds back the tasks after it (they build on it)', () => {
    const lease = {
      token: 4,
      owner: 'other:1',
      issue: one.number,
      claimed_at: '',
      expires_at: '2026-11-22T10:30:00Z',
      ttl_ms: 1_800_000,
    };
    const plan = planTasks(items, new Map([claim(one, { lease })]), NOW);
    expect(plan.candidates).toEqual([]);
    expect(plan.skipped.map((s) => s.reason.kind)).toEqual(['leased', 'waiting', 'waiting']);
    // An expired lease is free again.
    expect(
      planTasks(items, new Map([claim(one, { lease })]), Date.parse('2026-11-22T11:00:00Z')).candidates,
    ).toEqual([one]);
  });
});

describe('createTaskSource: a group conversation between its tasks', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'issueloop-task-source-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const report = (item: TaskItem, outcome: string, sessionId?: string) =>
    ({ issue: item.number, outcome, ...(sessionId ? { sessionId } : {}) }) as SessionReport;

  function source(threads = emptyThreads('plan.md'), engine: 'native' | 'claude-code' = 'native') {
    const log = createMemoryLog();
    return createTaskSource({
      file: join(dir, 'plan.md'),
      shownAs: 'plan.md',
      checkout: dir,
      branch: 'issueloop/tasks/plan',
      worktreeName: 'tasks-plan',
      stateDir: dir,
      threads,
      config: ConfigSchema.parse({ engine }),
      log,
      now: () => NOW,
      redact: createRedactor(['hunter2-secret']),
    });
  }
  const tracker = (s: ReturnType<typeof source>, item: TaskItem) =>
    s.track(item, {
      attempt: 1,
      before: undefined,
      readable: () => true,
      log: createMemoryLog(),
      ledger: {} as never,
    });

  it('a completed task hands its Claude Code session to the next task of its group, saved for the next run', async () => {
    const s = source();
    const work = s.session(one);
    expect(work.engine).toBe('claude-code');
    expect(work.thread?.from).toBeUndefined();
    work.thread?.keep({ engine: 'claude-code', sessionId: 'sess-1', tokens: 900, sessionCostUsd: 0.12 });
    await tracker(s, one).finished(report(one, 'resolved', 'sess-1'), undefined);
    // With the session's running cost, from which the next call's own cost is told.
    expect(s.session(two).thread?.from).toEqual({
      engine: 'claude-code',
      sessionId: 'sess-1',
      tokens: 900,
      sessionCostUsd: 0.12,
    });
    expect(s.session(two).firstMessage(undefined)).toBe('NEXT TASK: two');
    // Another group does not continue it.
    expect(s.session(three).thread?.from).toBeUndefined();

    const saved = await readThreads(dir, 'plan.md');
    expect(saved.groups.Build).toMatchObject({ engine: 'claude-code', session_id: 'sess-1', tokens: 900 });
    expect(saved.tasks[one.task.id]).toMatchObject({ engine: 'claude-code', session_id: 'sess-1' });
    // A new run (a new source over the saved file) resumes the same session.
    expect(source(saved).session(two).thread?.from?.sessionId).toBe('sess-1');
  });

  it('a task that does not complete breaks the thread: the next attempt starts fresh', async () => {
    const s = source();
    s.session(one).thread?.keep({ engine: 'claude-code', sessionId: 'sess-1', tokens: 900 });
    await tracker(s, one).finished(report(one, 'resolved', 'sess-1'), undefined);
    const work = s.session(two);
    work.thread?.keep({ engine: 'claude-code', sessionId: 'sess-1', tokens: 1900 });
    await tracker(s, two).finished(report(two, 'interrupted', 'sess-1'), undefined);
    expect(s.session(two).thread?.from).toBeUndefined();
    expect(s.session(two).firstMessage({ interruptedContext: 'was editing two.js' })).toBe(
      'Task 2 (Build): two\n\nCONTEXT FROM INTERRUPTED ATTEMPT: was editing two.js',
    );
    expect((await readThreads(dir, 'plan.md')).groups.Build).toBeUndefined();
  });

  it('a native conversation is carried in memory, never written to disk; its summary is, redacted (regression: a secret in a summary was saved)', async () => {
    const s = source();
    const messages = [{ role: 'user' as const, content: 'secret-ish transcript' }];
    s.session(three).thread?.keep({ engine: 'native', tokens: 300, messages });
    await tracker(s, three).finished(report(three, 'resolved'), undefined);
    const text = await readFile(join(dir, 'threads.json'), 'utf8');
    expect(text).not.toContain('secret-ish transcript');
    // A new run has nothing to continue from (no summary), so it starts fresh.
    expect(source(await readThreads(dir, 'plan.md')).session(three).thread?.from).toBeUndefined();

    const t = source();
    t.session(three).thread?.keep({ engine: 'native', tokens: 0, summary: 'did the docs hunter2-secret' });
    await tracker(t, three).finished(report(three, 'resolved'), undefined);
    const next = source(await readThreads(dir, 'plan.md')).session(three);
    // A summary is model output: a secret in it is redacted before it is saved or sent on.
    expect(await readFile(join(dir, 'threads.json'), 'utf8')).not.toContain('hunter2-secret');
    expect(next.firstMessage(undefined)).toMatch(
      /^CONTEXT FROM PREVIOUS SESSION:\ndid the docs \S+\n\nNEXT TASK: three$/,
    );
    expect(next.firstMessage(undefined)).not.toContain('hunter2-secret');
  });

  it('a thread from another engine is not continued (the group switched engines)', async () => {
    const threads = emptyThreads('plan.md');
    threads.groups.Docs = {
      engine: 'claude-code',
      session_id: 'old',
      tokens: 5,
      cost_usd: 0,
      summary: null,
      updated_at: '',
      rev: 1,
    };
    expect(source(threads, 'native').session(three).thread?.from).toBeUndefined();
    expect(source(threads, 'claude-code').session(three).thread?.from?.sessionId).toBe('old');
  });

  it('regression: a conversation another process moved on since is not continued from this process memory', async () => {
    const a = source();
    a.session(three).thread?.keep({
      engine: 'native',
      tokens: 300,
      messages: [{ role: 'user', content: 'A' }],
    });
    await tracker(a, three).finished(report(three, 'resolved'), undefined);
    expect(a.session(three).thread?.from?.messages).toHaveLength(1);

    const b = source(await readThreads(dir, 'plan.md'));
    b.session(three).thread?.keep({ engine: 'native', tokens: 0, summary: 'B summarised' });
    await tracker(b, three).finished(report(three, 'resolved'), undefined);
    // Both processes' task entries survive: each writes only its own task's and group's entries.
    await a.plan(items, new Map(), {
      round: 2,
      now: NOW + 1,
      log: createMemoryLog(),
      store: {} as never,
      ledger: {} as never,
    });
    expect(a.session(three).thread?.from).toMatchObject({ summary: 'B summarised' });
  });
});
