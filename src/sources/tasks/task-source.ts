import { readFile } from 'node:fs/promises';
import type { ClaimView } from '../../claims/claim-store.js';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { ThreadCarry } from '../../engines/engine.js';
import type { RoundPlan } from '../../scheduler/plan-round.js';
import type { WorkSource } from '../../scheduler/work-source.js';
import { parseTaskFile, type Task, type TaskEngine } from './task-file.js';
import { type GroupThread, readThreads, type ThreadsFile, taskKey, writeThreads } from './task-state.js';
import { taskWork } from './task-work.js';

/** A task of the file as the scheduler sees it: its claim key, its text as the title. */
export interface TaskItem {
  number: number;
  title: string;
  task: Task;
}

export function toTaskItems(tasks: readonly Task[]): TaskItem[] {
  return tasks.map((task) => ({
    number: taskKey(task.id),
    title: task.text.split('\n')[0] ?? '',
    task,
    logFields: { task: task.index },
  }));
}

export interface TaskSourceOptions {
  /** The task file, absolute: read again every round, so edits between rounds count. */
  file: string;
  /** How the user named it, for messages. */
  shownAs: string;
  checkout: string;
  branch: string;
  worktreeName: string;
  /** The task file's state directory (threads.json). */
  stateDir: string;
  threads: ThreadsFile;
  config: Config;
  boot?: { path: string; text: string };
  log: Log;
  now: () => number;
  /** A compaction summary is model output: redacted before it is saved or sent on. */
  redact: Redactor;
}

/**
 * Seed 001's execution order as a plan: tasks run one at a time in file order, all on one branch, so
 * each builds on the last. The first task that is neither completed nor given up on is the round's
 * only candidate; the tasks after it wait. A failed task is tried again (its failures counted like an
 * issue's) until `max_failures`, then it needs a human and the next task goes on.
 */
export function planTasks(
  items: readonly TaskItem[],
  claims: ReadonlyMap<number, ClaimView>,
  now: number,
): RoundPlan<TaskItem> {
  const plan: RoundPlan<TaskItem> = { candidates: [], skipped: [] };
  let first: TaskItem | undefined;
  for (const item of items) {
    const claim = claims.get(item.number);
    if (claim?.last_outcome === 'resolved') {
      plan.skipped.push({ issue: item, reason: { kind: 'completed' } });
      continue;
    }
    if (claim?.needs_human) {
      plan.skipped.push({ issue: item, reason: { kind: 'needs_human', failures: claim.failure_count } });
      continue;
    }
    if (first) {
      plan.skipped.push({ issue: item, reason: { kind: 'waiting', on: `task ${first.task.index}` } });
      continue;
    }
    first = item;
    if (claim?.lease && Date.parse(claim.lease.expires_at) > now) {
      plan.skipped.push({
        issue: item,
        reason: { kind: 'leased', owner: claim.lease.owner, until: claim.lease.expires_at },
      });
      continue;
    }
    plan.candidates.push(item);
  }
  return plan;
}

function persisted(carry: ThreadCarry, at: string, rev: number): GroupThread {
  return {
    engine: carry.engine,
    session_id: carry.sessionId ?? null,
    tokens: carry.tokens,
    cost_usd: carry.sessionCostUsd ?? 0,
    summary: carry.summary ?? null,
    updated_at: at,
    rev,
  };
}

/** A group's conversation as saved: Claude Code's session or a summary; a native conversation lives in memory. */
function fromDisk(saved: GroupThread | undefined): ThreadCarry | undefined {
  if (!saved || (!saved.session_id && !saved.summary)) return undefined;
  return {
    engine: saved.engine,
    tokens: saved.tokens,
    ...(saved.session_id ? { sessionId: saved.session_id, sessionCostUsd: saved.cost_usd } : {}),
    ...(saved.summary ? { summary: saved.summary } : {}),
  };
}

/**
 * A task file as the backlog (seed 001): no GitHub, no trust gate, no labels, board or PR. Each task
 * is committed on the file's branch; the tasks of a group continue one conversation, which a task
 * that does not complete breaks (its successor starts fresh, as seed 000 feature 6 asks of an
 * interrupted one).
 */
export function createTaskSource(options: TaskSourceOptions): WorkSource<TaskItem> {
  const { config } = options;
  let threads = options.threads;
  const defaultEngine: TaskEngine = config.engine;
  /** Native conversations, which are not written to disk, with the saved entry they belong to. */
  const live = new Map<string, { carry: ThreadCarry; rev: number }>();
  /** What each running task's session left of its group's conversation, until its outcome is known. */
  const pending = new Map<number, ThreadCarry>();
  const iso = () => new Date(options.now()).toISOString();

  const threadOf = (task: Task): ThreadCarry | undefined => {
    const saved = threads.groups[task.group];
    const mine = live.get(task.group);
    // Another process moved the group on since: this process's conversation is out of date.
    const carry = mine && mine.rev === saved?.rev ? mine.carry : fromDisk(saved);
    return carry && carry.engine === (task.engine ?? defaultEngine) ? carry : undefined;
  };

  /** Another process working the same file may have moved a thread on: read the file again. */
  const reload = async () => {
    threads = await readThreads(options.stateDir, options.shownAs);
  };
  /** Read, change, write: only this task's entries change, whatever another process wrote meanwhile. */
  const update = async (log: Log, change: (current: ThreadsFile) => void) => {
    try {
      await reload();
      change(threads);
      await writeThreads(options.stateDir, threads);
    } catch (err) {
      log.warn({ err: (err as Error).message }, `could not save the task threads of ${options.shownAs}`);
    }
  };

  return {
    async list() {
      const text = await readFile(options.file, 'utf8');
      return toTaskItems(parseTaskFile(text, options.shownAs).tasks);
    },

    async plan(items, claims, round) {
      await reload();
      return { ...planTasks(items, claims, round.now), claims, claimable: () => true };
    },

    session(item) {
      const from = threadOf(item.task);
      return taskWork(
        { ...item.task, key: item.number },
        {
          checkout: options.checkout,
          branch: options.branch,
          worktreeName: options.worktreeName,
          author: config.pr.author,
          ...(options.boot ? { boot: options.boot } : {}),
          thread: {
            ...(from ? { from } : {}),
            keep: (carry) => {
              const summary = carry.summary === undefined ? undefined : options.redact(carry.summary);
              pending.set(item.number, { ...carry, ...(summary === undefined ? {} : { summary }) });
            },
          },
        },
      );
    },

    track(item, input) {
      const { task } = item;
      return {
        async claimed() {
          input.log.info({ task: task.id }, `task ${task.index} (${task.group}): ${item.title}`);
        },
        phase() {},
        async finished(report) {
          const carry = pending.get(item.number);
          pending.delete(item.number);
          const engine = task.engine ?? defaultEngine;
          const kept = report.outcome === 'resolved' ? carry : undefined;
          live.delete(task.group);
          await update(input.log, (current) => {
            const at = iso();
            current.tasks[task.id] = { engine, session_id: report.sessionId ?? null, updated_at: at };
            if (kept) {
              const rev = (current.groups[task.group]?.rev ?? 0) + 1;
              current.groups[task.group] = persisted(kept, at, rev);
              if (kept.messages) live.set(task.group, { carry: kept, rev });
            }
            // An attempt that did not complete leaves a conversation its files no longer match.
            else delete current.groups[task.group];
          });
        },
      };
    },

    afterRound: async () => undefined,
    // A task's outcome is written before its worker goes on: the group's next task reads it.
    settle: async () => undefined,
  };
}
