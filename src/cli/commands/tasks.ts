import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import type { Config } from '../../config/schema.js';
import type { Deps } from '../../core/deps.js';
import type { Redactor } from '../../core/redact.js';
import { ensureStateDir } from '../../core/state-dir.js';
import { terminalJson } from '../../core/terminal-text.js';
import { EXIT, type ExitCode } from '../../run/exit-codes.js';
import { executeRounds, openCheckedModels, openRunFiles, requireAnthropicKey } from '../../run/open-run.js';
import { openSandbox } from '../../run/open-sandbox.js';
import { assertPrerequisites } from '../../run/prerequisites.js';
import type { ProgressDisplay } from '../../run/progress-display.js';
import { renderRunSummary, roundedCosts } from '../../run/run-summary.js';
import type { Env } from '../../run/secrets.js';
import type { WorkContext } from '../../scheduler/work-item.js';
import type { TaskFile } from '../../sources/tasks/task-file.js';
import { createTaskSource, type TaskItem, toTaskItems } from '../../sources/tasks/task-source.js';
import { readThreads } from '../../sources/tasks/task-state.js';
import { checkTaskCheckout, resolveTaskBoot, type TaskState, taskBranch, withTaskFix } from './task-files.js';

export interface RunTasksInput {
  env: Env;
  config: Config;
  deps: Deps;
  redact: Redactor;
  interrupt: AbortSignal;
  state: TaskState;
  maxRounds?: number;
  json: boolean;
  progress?: ProgressDisplay;
  /** Filled with each task's label (`task 3`) for the progress lines. */
  labels?: Map<number, string>;
  stdout: (text: string) => void;
  fetch?: typeof fetch;
}

/** Whether any session of this run may use the Anthropic API (the native engine, or a fallback to it). */
function usesNativeEngine(parsed: TaskFile, config: Config): boolean {
  if (config.claude_code.fallback === 'native') return true;
  return parsed.tasks.some((task) => (task.engine ?? config.engine) === 'native');
}

/**
 * The model runtime of a task run. Its endpoints and, when a task may use the Anthropic API, its key are
 * checked first: a setting that can never work stops the run before any task is tried.
 */
async function openTaskModels(input: RunTasksInput) {
  const { config, state } = input;
  const native = usesNativeEngine(state.loaded.parsed, config);
  assertPrerequisites(input.env, config, { github: false, model: native });
  const apiKey = native ? requireAnthropicKey(input.env) : 'unused: every task runs on claude-code';
  return openCheckedModels(input, apiKey, { check: native });
}

/**
 * `issueloop run --tasks`: the same rounds as an issue run over a task file's backlog. A task run
 * stops as soon as a round finds nothing to run (every task completed or given up on).
 */
export async function runTasks(input: RunTasksInput): Promise<ExitCode> {
  const { config, deps, redact, state } = input;
  const { loaded } = state;
  const models = await openTaskModels(input);
  const sandbox = await openSandbox(config, input.env, deps.log, state.checkout);
  await ensureStateDir(state.stateDir);
  await mkdir(state.dir, { recursive: true });
  const threads = await readThreads(state.dir, loaded.shown);
  const boot = await resolveTaskBoot(loaded, state.checkout);
  if (boot.warning) deps.log.warn({ file: loaded.shown }, boot.warning);
  const { ledger, worktreesDir } = await openRunFiles(input, state.stateDir, state.dir);
  const branch = taskBranch(loaded.absolute);
  const worktreeName = `tasks-${basename(state.dir)}`;
  await checkTaskCheckout(state, join(worktreesDir, worktreeName), { env: input.env, redact });
  const items = toTaskItems(loaded.parsed.tasks);
  for (const item of items) input.labels?.set(item.number, `task ${item.task.index}`);
  const ctx: WorkContext<TaskItem> = {
    config: { ...config, empty_rounds: 1 },
    source: createTaskSource({
      file: loaded.absolute,
      shownAs: loaded.shown,
      checkout: state.checkout,
      branch,
      worktreeName,
      stateDir: state.dir,
      threads,
      config,
      ...(boot.boot ? { boot: boot.boot } : {}),
      log: deps.log,
      now: () => deps.clock.now(),
      redact,
    }),
    claims: state.claims,
    deps,
    ledger,
    signal: input.interrupt,
    checkout: state.checkout,
    worktreesDir,
    repo: basename(state.checkout),
    models,
    env: input.env,
    redact,
    sandbox,
    ...(input.progress ? { progress: input.progress } : {}),
  };
  const finished = await withTaskFix(state, loaded.shown, () =>
    executeRounds(
      {
        ctx,
        ledger,
        start: { tasks: loaded.shown, branch, checkout: state.checkout, total: loaded.parsed.tasks.length },
      },
      {
        owner: `${hostname()}:${process.pid}`,
        ...(input.maxRounds !== undefined ? { maxRounds: input.maxRounds } : {}),
      },
      input.progress,
    ),
  );
  const { summary, ledgerFile } = finished;
  const labels = new Map(items.map((item) => [item.number, item.task]));
  if (input.json) {
    const reports = summary.reports.map((r) => {
      const task = labels.get(r.issue);
      return {
        ...r,
        task: task ? { index: task.index, id: task.id, group: task.group, text: task.text } : null,
      };
    });
    const skipped = summary.skipped.map(({ issue, ...rest }) => ({
      task: labels.get(issue)?.index ?? null,
      ...rest,
    }));
    input.stdout(
      `${terminalJson({ ...summary, reports, skipped, branch, ledger: ledgerFile }, roundedCosts, 2)}\n`,
    );
  } else {
    const text = renderRunSummary(
      summary,
      undefined,
      ledgerFile,
      (n) => `task ${labels.get(n)?.index ?? '?'}`,
    );
    input.stdout(`${text}branch: ${branch} (git log ${branch})\n`);
  }
  return summary.stop === 'interrupted' ? EXIT.interrupted : EXIT.ok;
}
