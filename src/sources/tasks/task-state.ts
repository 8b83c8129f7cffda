import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { z } from 'zod';
import type { ClaimView } from '../../claims/claim-store.js';
import { failureText } from '../../claims/claims-state.js';
import { CorruptStateError } from '../../core/errors.js';
import { writeFileDurably } from '../../core/write-file-durably.js';
import type { Task, TaskEngine } from './task-file.js';

/**
 * A task file's state, in its own directory under the state directory: the claims (attempts,
 * failures, outcome, interrupted_at, partial_context, keyed by `taskKey`) in a file claim store, and
 * `threads.json` for what the claim store does not hold — each group's conversation (Claude Code's
 * session id, its tokens, a compaction summary) and the session id each task last ran in.
 */

/** The claim key of a task: its id's 48 bits as a positive number (claims are keyed by number). */
export function taskKey(id: string): number {
  return Number.parseInt(id, 16) + 1;
}

/** `tasks.md` → `tasks`: the branch and directory name of a task file. */
export function taskFileSlug(file: string): string {
  const stem = basename(file, extname(file));
  const slug = stem
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'tasks';
}

/** Where a task file's state lives: one directory per task file, told apart by its absolute path. */
export function taskStateDir(stateDir: string, absoluteFile: string): string {
  const hash = createHash('sha256').update(absoluteFile).digest('hex').slice(0, 8);
  return join(stateDir, 'tasks', `${taskFileSlug(absoluteFile)}-${hash}`);
}

export const THREADS_FILE = 'threads.json';

const engine = z.enum(['native', 'claude-code']);

const GroupThreadSchema = z.object({
  engine,
  session_id: z.string().nullable(),
  tokens: z.number().nonnegative(),
  /** Claude Code's running cost of that session: the next call's own cost is its total less this. */
  cost_usd: z.number().nonnegative().default(0),
  summary: z.string().nullable(),
  updated_at: z.string(),
  /** Counts the group's writes: a process knows whether the conversation it holds is still the latest. */
  rev: z.int().nonnegative().default(0),
});

const TaskSessionSchema = z.object({
  engine,
  session_id: z.string().nullable(),
  updated_at: z.string(),
});

const ThreadsFileSchema = z.object({
  version: z.literal(1),
  task_file: z.string(),
  groups: z.record(z.string(), GroupThreadSchema),
  tasks: z.record(z.string(), TaskSessionSchema),
});

export type GroupThread = z.output<typeof GroupThreadSchema>;
export type ThreadsFile = z.output<typeof ThreadsFileSchema>;

export function emptyThreads(taskFile: string): ThreadsFile {
  return { version: 1, task_file: taskFile, groups: {}, tasks: {} };
}

/** The threads file; a missing one is empty, an unreadable one is reported and never overwritten. */
export async function readThreads(dir: string, taskFile: string): Promise<ThreadsFile> {
  const file = join(dir, THREADS_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyThreads(taskFile);
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CorruptStateError(file, (err as Error).message, fixOf(taskFile), { cause: err });
  }
  const parsed = ThreadsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(root)';
    throw new CorruptStateError(file, `${where}: ${issue?.message ?? 'invalid'}`, fixOf(taskFile));
  }
  return parsed.data;
}

function fixOf(taskFile: string): string {
  return `Run \`issueloop reset --tasks ${taskFile}\` to start the task file's state over, or move the file aside.`;
}

export async function writeThreads(dir: string, threads: ThreadsFile): Promise<void> {
  await writeFileDurably(join(dir, THREADS_FILE), `${JSON.stringify(threads, null, 2)}\n`);
}

/** Seed 001's task states, plus the two a scheduler adds: leased right now, and given up on. */
export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'interrupted' | 'needs_human';

export function taskStatus(view: ClaimView | undefined, now: number): TaskStatus {
  if (!view) return 'pending';
  if (view.lease && Date.parse(view.lease.expires_at) > now) return 'running';
  if (view.last_outcome === 'resolved') return 'completed';
  if (view.needs_human) return 'needs_human';
  if (view.last_outcome === 'interrupted') return 'interrupted';
  if (view.last_outcome === null) return 'pending';
  return 'failed';
}

export interface TaskReport {
  index: number;
  id: string;
  group: string;
  text: string;
  line: number;
  engine: TaskEngine;
  status: TaskStatus;
  attempts: number;
  failures: number;
  last_outcome: string | null;
  last_failure: string | null;
  session_id: string | null;
  interrupted_at: string | null;
  partial_context: string | null;
}

/** One task's state, as `status --tasks` and `run --tasks --dry-run` print it. */
export function reportTask(
  task: Task,
  view: ClaimView | undefined,
  threads: ThreadsFile,
  defaultEngine: TaskEngine,
  now: number,
): TaskReport {
  const last = view?.failure_reasons.at(-1);
  return {
    index: task.index,
    id: task.id,
    group: task.group,
    text: task.text,
    line: task.line,
    engine: task.engine ?? defaultEngine,
    status: taskStatus(view, now),
    attempts: view?.attempts ?? 0,
    failures: view?.failure_count ?? 0,
    last_outcome: view?.last_outcome ?? null,
    last_failure: last ? failureText(last) : null,
    session_id: threads.tasks[task.id]?.session_id ?? null,
    interrupted_at: view?.last_outcome === 'interrupted' ? (view.interrupted_at ?? null) : null,
    partial_context: view?.last_outcome === 'interrupted' ? (view.partial_context ?? null) : null,
  };
}
