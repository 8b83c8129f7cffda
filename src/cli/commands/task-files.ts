import { readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { capProjectText } from '../../agent/project-files.js';
import type { ClaimStore } from '../../claims/claim-store.js';
import { createFileClaimStore } from '../../claims/file-claim-store.js';
import type { Config } from '../../config/schema.js';
import type { Deps } from '../../core/deps.js';
import { CorruptStateError, UsageError } from '../../core/errors.js';
import type { Redactor } from '../../core/redact.js';
import { stateDirOf } from '../../run/github-deps.js';
import { checkoutOf } from '../../run/open-run.js';
import type { Env } from '../../run/secrets.js';
import { runGit } from '../../session/git/index.js';
import { parseTaskFile, type TaskFile } from '../../sources/tasks/task-file.js';
import { taskFileSlug, taskStateDir } from '../../sources/tasks/task-state.js';

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
