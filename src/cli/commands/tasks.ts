import { mkdir, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { capProjectText } from '../../agent/project-files.js';
import type { ClaimStore } from '../../claims/claim-store.js';
import { createFileClaimStore } from '../../claims/file-claim-store.js';
import type { Config } from '../../config/schema.js';
import type { Deps } from '../../core/deps.js';
import { CorruptStateError, UsageError } from '../../core/errors.js';
import type { Redactor } from '../../core/redact.js';
import { ensureStateDir } from '../../core/state-dir.js';
import { EXIT, type ExitCode } from '../../run/exit-codes.js';
import { stateDirOf } from '../../run/github-deps.js';
import {
  checkoutOf,
  executeRounds,
  openModels,
  openRunFiles,
  requireAnthropicKey,
} from '../../run/open-run.js';
import { openSandbox } from '../../run/open-sandbox.js';
import type { ProgressDisplay } from '../../run/progress-display.js';
import { renderRunSummary } from '../../run/run-summary.js';
import type { Env } from '../../run/secrets.js';
import type { WorkContext } from '../../scheduler/work-item.js';
import { runGit } from '../../session/git/index.js';
import { parseTaskFile, type TaskFile } from '../../sources/tasks/task-file.js';
import { createTaskSource, type TaskItem, toTaskItems } from '../../sources/tasks/task-source.js';
import { readThreads, taskFileSlug, taskStateDir } from '../../sources/tasks/task-state.js';

/** A task file, read and parsed; malformed lines are a TaskFileError (exit 2). */
export interface LoadedTaskFile {
  absolute: string;
  /** As the user wrote it, for messages. */
  shown: string;
  parsed: TaskFile;
}

export async function loadTaskFile(cwd: string, file: string): Promise<LoadedTaskFile> {
  const absolute = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `--tasks ${file}: no such file; write a task file ("## Group" headings, "- task" items) or fix the path`
        : `--tasks ${file}: cannot read it (${(err as Error).message})`,
    );
  }
  return { absolute, shown: file, parsed: parseTaskFile(text, file) };
}

/** Every task of a file commits on this branch. */
export function taskBranch(absolute: string): string {
  return `issueloop/tasks/${taskFileSlug(absolute)}`;
}

/**
 * Seed 000 feature 1: the task file's `<!-- boot: path -->` names a file relative to the task file's
 * directory, else to the checkout. Without a directive the session looks up `session.boot_file`.
 */
export async function resolveTaskBoot(
  loaded: LoadedTaskFile,
  checkout: string,
): Promise<{ boot?: { path: string; text: string }; warning?: string }> {
  const directive = loaded.parsed.boot;
  if (!directive) return {};
  for (const candidate of [
    resolve(dirname(loaded.absolute), directive.path),
    resolve(checkout, directive.path),
  ]) {
    try {
      return { boot: { path: candidate, text: capProjectText(await readFile(candidate, 'utf8')).text } };
    } catch {
      // Not there; the next candidate.
    }
  }
  return {
    warning: `${loaded.shown}:${directive.line}: the boot directive names ${directive.path}, found neither next to the task file nor in ${checkout}; using session.boot_file`,
  };
}

export interface TaskStateInput {
  cwd: string;
  dir: string;
  file: string;
  config: Config;
  env: Env;
  redact: Redactor;
  clock: Deps['clock'];
  /** Where the claim store reports a lease it will not honour; silent without one. */
  log?: Deps['log'];
}

/** Where a task file's state lives; the file need not parse (`reset --tasks` must work on a broken one). */
export function taskStatePaths(input: Pick<TaskStateInput, 'cwd' | 'dir' | 'file' | 'config'>) {
  const absolute = resolve(input.cwd, input.file);
  const stateDir = stateDirOf(input.config, input.dir);
  return { absolute, shown: input.file, stateDir, dir: taskStateDir(stateDir, absolute) };
}

export interface TaskState {
  checkout: string;
  stateDir: string;
  dir: string;
  claims: ClaimStore;
  loaded: LoadedTaskFile;
}

function taskClaims(input: TaskStateInput, dir: string): ClaimStore {
  return createFileClaimStore({
    file: join(dir, 'claims.json'),
    clock: input.clock,
    maxFailures: input.config.claims.max_failures,
    redact: input.redact,
    ...(input.log ? { log: input.log } : {}),
  });
}

/** The task file, its checkout and its state: a file claim store in its own directory. */
export async function openTaskState(input: TaskStateInput): Promise<TaskState> {
  const loaded = await loadTaskFile(input.cwd, input.file);
  const checkout = await checkoutOf(
    input.dir,
    input.env,
    input.redact,
    'pass --dir <checkout> (the repository the tasks change), or run git init there',
  );
  const paths = taskStatePaths(input);
  return { checkout, stateDir: paths.stateDir, dir: paths.dir, claims: taskClaims(input, paths.dir), loaded };
}

/** A corrupt claims file of a task file is reset with `reset --tasks`, not `reset --claims`. */
export async function withTaskFix<T>(
  state: { dir: string },
  shown: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CorruptStateError && err.reason === 'unreadable' && err.file.startsWith(state.dir)) {
      throw err.withFix(
        `Repair it by hand, or run \`issueloop reset --tasks ${shown}\` to forget the task file's state (its branch stays).`,
      );
    }
    throw err;
  }
}

/**
 * What must hold before a task runs, so a setup problem is reported once (exit 2) rather than
 * counted as every task's failure: the checkout has a commit to start from, and the task branch is
 * not checked out anywhere but issueloop's own worktree (git refuses to move a checked-out branch).
 */
export async function checkTaskCheckout(
  state: TaskState,
  worktree: string,
  git: { env: Env; redact: Redactor },
): Promise<void> {
  const run = { ...git, cwd: state.checkout };
  const head = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], {
    ...run,
    okExitCodes: [1],
  });
  if (head.exitCode !== 0) {
    throw new UsageError(
      `${state.checkout} has no commit yet: the first task starts from HEAD, so commit something first`,
    );
  }
  const branch = taskBranch(state.loaded.absolute);
  const { stdout } = await runGit(['worktree', 'list', '--porcelain', '-z'], run);
  let path = '';
  for (const field of stdout.split('\0')) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    if (field === `branch refs/heads/${branch}` && resolve(path) !== resolve(worktree)) {
      throw new UsageError(
        `${branch} is checked out at ${path}: issueloop commits the tasks on that branch, so switch that checkout to another branch (git switch -) and run again`,
      );
    }
  }
}

/** `reset --tasks`: forgets a task file's claims, outcomes and conversations (the branch stays). */
export async function resetTaskState(
  input: TaskStateInput,
  options: { yes: boolean; confirm?: (question: string) => Promise<boolean> },
): Promise<string> {
  const paths = taskStatePaths(input);
  const branch = taskBranch(paths.absolute);
  const question = `Forget every outcome and conversation of ${paths.shown} (${paths.dir})? The branch ${branch} is kept.`;
  if (!options.yes) {
    if (!options.confirm)
      throw new UsageError('reset --tasks asks for confirmation: run it at a terminal or pass --yes');
    if (!(await options.confirm(question))) return 'nothing reset\n';
  }
  // A corrupt claims file is what a reset is for: the live leases are counted when it can be read.
  const leases = await taskClaims(input, paths.dir)
    .list()
    .then((views) => views.filter((view) => view.lease !== null).length)
    .catch(() => 0);
  await rm(paths.dir, { recursive: true, force: true });
  return `reset ${paths.shown}: its state directory ${paths.dir} is gone${leases > 0 ? ` (${leases} live lease(s) dropped)` : ''}; branch ${branch} kept (to start from scratch: git branch -D ${branch})\n`;
}

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
 * `issueloop run --tasks`: the same rounds as an issue run over a task file's backlog. A task run
 * stops as soon as a round finds nothing to run (every task completed or given up on).
 */
export async function runTasks(input: RunTasksInput): Promise<ExitCode> {
  const { config, deps, redact, state } = input;
  const { loaded } = state;
  const apiKey = usesNativeEngine(loaded.parsed, config) ? requireAnthropicKey(input.env) : '';
  const models = openModels(
    input,
    apiKey || 'unused: every task runs on claude-code',
    input.env.ANTHROPIC_BASE_URL || undefined,
  );
  const sandbox = await openSandbox(config, input.env, deps.log);
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
      `${JSON.stringify({ ...summary, reports, skipped, branch, ledger: ledgerFile }, null, 2)}\n`,
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
