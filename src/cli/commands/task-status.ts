import type { ClaimView } from '../../claims/claim-store.js';
import type { Config } from '../../config/schema.js';
import { describeSkip } from '../../scheduler/plan-round.js';
import { planTasks, toTaskItems } from '../../sources/tasks/task-source.js';
import { readThreads, reportTask, type TaskReport } from '../../sources/tasks/task-state.js';
import { resolveTaskBoot, type TaskState, taskBranch, withTaskFix } from './task-files.js';

const STATUS_MARK: Record<TaskReport['status'], string> = {
  completed: 'OK',
  failed: 'FAIL',
  interrupted: 'INT',
  needs_human: 'HUMAN',
  running: 'RUN',
  pending: '...',
};

export interface TaskStatusReport {
  task_file: string;
  branch: string;
  state_dir: string;
  counts: Record<TaskReport['status'], number>;
  tasks: TaskReport[];
}

/** Every task with its state: seed 001's `--status`, plus attempts, failures and session ids. */
export async function readTaskStatus(
  state: TaskState,
  config: Config,
  now: number,
): Promise<TaskStatusReport> {
  const listed = await withTaskFix(state, state.loaded.shown, () => state.claims.list());
  const views = new Map<number, ClaimView>(listed.map((view) => [view.issue, view]));
  const threads = await readThreads(state.dir, state.loaded.shown);
  const tasks = toTaskItems(state.loaded.parsed.tasks).map((item) =>
    reportTask(item.task, views.get(item.number), threads, config.engine, now),
  );
  const counts = { pending: 0, running: 0, completed: 0, failed: 0, interrupted: 0, needs_human: 0 };
  for (const task of tasks) counts[task.status] += 1;
  return {
    task_file: state.loaded.shown,
    branch: taskBranch(state.loaded.absolute),
    state_dir: state.dir,
    counts,
    tasks,
  };
}

export function renderTaskStatus(report: TaskStatusReport): string {
  const lines = [`${report.task_file}: ${report.tasks.length} task(s) on branch ${report.branch}`];
  let group = '';
  for (const task of report.tasks) {
    if (task.group !== group) {
      group = task.group;
      lines.push(`## ${group}`);
    }
    const extra = [
      task.attempts > 0 ? `${task.attempts} attempt(s)` : '',
      task.failures > 0 ? `${task.failures} failure(s)` : '',
      task.session_id ? `session ${task.session_id}` : '',
      task.interrupted_at ? `interrupted at ${task.interrupted_at}` : '',
    ].filter(Boolean);
    lines.push(
      `  [${STATUS_MARK[task.status]}] ${task.index}. ${firstLine(task.text)}${extra.length ? `  (${extra.join(', ')})` : ''}`,
    );
    if (task.status === 'failed' || task.status === 'needs_human') {
      if (task.last_failure) lines.push(`        last failure: ${task.last_failure}`);
    }
    if (task.partial_context) lines.push(`        partial context: ${oneLine(task.partial_context, 160)}`);
  }
  const c = report.counts;
  lines.push(
    '',
    `completed ${c.completed}, pending ${c.pending}, failed ${c.failed}, interrupted ${c.interrupted}, needs a human ${c.needs_human}, running ${c.running}`,
  );
  return `${lines.join('\n')}\n`;
}

const firstLine = (text: string) => text.split('\n')[0] ?? '';
const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `…${flat.slice(-max)}` : flat;
};

export interface TaskDryRun extends TaskStatusReport {
  boot: string | null;
  next: { index: number; id: string; text: string } | null;
  skipped: Array<{ index: number; reason: string }>;
}

/** `run --tasks --dry-run`: the parsed tasks, their state and the one the next round would run. */
export async function planTaskDryRun(state: TaskState, config: Config, now: number): Promise<TaskDryRun> {
  const status = await readTaskStatus(state, config, now);
  const listed = await withTaskFix(state, state.loaded.shown, () => state.claims.list());
  const views = new Map<number, ClaimView>(listed.map((view) => [view.issue, view]));
  const plan = planTasks(toTaskItems(state.loaded.parsed.tasks), views, now);
  const next = plan.candidates[0];
  const boot = await resolveTaskBoot(state.loaded, state.checkout);
  return {
    ...status,
    boot: boot.boot?.path ?? (state.loaded.parsed.boot ? `(missing) ${state.loaded.parsed.boot.path}` : null),
    next: next ? { index: next.task.index, id: next.task.id, text: next.task.text } : null,
    skipped: plan.skipped.map((s) => ({ index: s.issue.task.index, reason: describeSkip(s.reason) })),
  };
}

export function renderTaskDryRun(plan: TaskDryRun): string {
  const head = [
    `dry run: nothing is written`,
    ...(plan.boot ? [`boot: ${plan.boot}`] : []),
    plan.next ? `next: task ${plan.next.index}. ${firstLine(plan.next.text)}` : 'next: nothing to run',
    '',
  ];
  const engines = [...new Set(plan.tasks.map((t) => `${t.group}: ${t.engine}`))];
  return `${head.join('\n')}${renderTaskStatus(plan)}engines: ${engines.join('; ')}\n`;
}
