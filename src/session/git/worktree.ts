import { realpath, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { IssueloopError } from '../../core/errors.js';
import { createSerialQueue } from '../../core/serial-queue.js';
import { assertGitArg, firstLine } from './git-args.js';
import { GitError } from './git-error.js';
import { headSha } from './head-sha.js';
import { type GitOptions, runGit } from './run-git.js';

export interface AddWorktreeInput {
  /** The clone issueloop works in; worktrees are registered there. */
  checkout: string;
  /** Absolute, or relative to `checkout`. */
  path: string;
  /** Created, or reset when it exists (`-B`). */
  branch: string;
  /** A revision, usually the freshly fetched `<remote>/<default branch>`. */
  startPoint: string;
}

/** Real path when it exists; else the parent's real path plus the name (a worktree dir may be gone). */
async function canonical(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch {
    try {
      return resolve(await realpath(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

async function registeredWorktrees(checkout: string, options: GitOptions): Promise<string[]> {
  const { stdout } = await runGit(['worktree', 'list', '--porcelain', '-z'], { ...options, cwd: checkout });
  const paths = stdout
    .split('\0')
    .filter((field) => field.startsWith('worktree '))
    .map((field) => field.slice('worktree '.length));
  return Promise.all(paths.map(canonical));
}

/** A failure worth stopping for even while cleaning up: the run was interrupted. */
function isInterruption(err: unknown): boolean {
  return err instanceof GitError && (err.errorClass === 'aborted' || err.errorClass === 'timeout');
}

/**
 * A checkout's real top-level directory, asked of git once per checkout in this process (a run's
 * checkout does not move while it runs; each worktree add and remove used to ask twice). A failure is
 * not kept: the next call asks again.
 */
const roots = new Map<string, Promise<string>>();
function checkoutRoot(checkout: string, options: GitOptions): Promise<string> {
  const key = resolve(checkout);
  let root = roots.get(key);
  if (!root) {
    root = runGit(['rev-parse', '--show-toplevel'], { ...options, cwd: checkout }).then(({ stdout }) =>
      canonical(firstLine(stdout)),
    );
    roots.set(key, root);
    root.catch(() => roots.delete(key));
  }
  return root;
}

function contains(outer: string, inner: string): boolean {
  const path = relative(outer, inner);
  return path === '' || (!isAbsolute(path) && path !== '..' && !path.startsWith(`..${sep}`));
}

/**
 * Unregisters and deletes whatever is at `path`: a worktree left by a crashed run (even a locked one,
 * hence the double --force), a registration whose directory is gone, or a plain directory.
 */
async function clearWorktreePath(
  checkout: string,
  root: string,
  target: string,
  options: GitOptions,
): Promise<void> {
  // The rm -rf below must never reach the checkout itself or a directory that contains it.
  if (contains(target, root)) {
    throw new IssueloopError(
      'git_invalid_argument',
      `worktree path ${target} is, or contains, the checkout ${root}`,
    );
  }
  const run = { ...options, cwd: checkout };
  // One listing answers both questions when the path was never registered: nothing can register it
  // meanwhile (worktree changes of a checkout are serial here), so there is nothing to prune after.
  let mayBeRegistered = (await registeredWorktrees(checkout, options)).includes(target);
  if (mayBeRegistered) {
    try {
      await runGit(['worktree', 'remove', '--force', '--force', target], run);
      mayBeRegistered = false;
    } catch (err) {
      // A half-created or damaged worktree may refuse removal; rm and prune below still clear it.
      if (isInterruption(err)) throw err;
    }
  }
  await rm(target, { recursive: true, force: true });
  // After the rm, so a registration whose removal failed is pruned as missing too. Only then: a
  // prune also drops another session's worktree that `worktree add` is still creating.
  if (mayBeRegistered && (await registeredWorktrees(checkout, options)).includes(target)) {
    await runGit(['worktree', 'prune'], run);
  }
}

/**
 * Worktree changes of one checkout, one at a time in this process: `git worktree add` registers the
 * worktree before it writes its files, and a concurrent prune or remove can see it half made.
 */
const queues = new Map<string, ReturnType<typeof createSerialQueue>>();
function serially<T>(checkout: string, work: () => Promise<T>): Promise<T> {
  let queue = queues.get(checkout);
  if (!queue) {
    queue = createSerialQueue();
    queues.set(checkout, queue);
  }
  return queue(work);
}

/** Relative paths are taken from the checkout, as git itself would when run there. */
async function worktreePath(checkout: string, path: string): Promise<string> {
  assertGitArg('worktree path', path);
  return canonical(resolve(checkout, path));
}

/**
 * Creates a worktree at `path` on `branch`, reset to `startPoint`, replacing anything a crashed run
 * left there. Returns the worktree's HEAD sha.
 */
export async function addWorktree(input: AddWorktreeInput, options: GitOptions = {}): Promise<string> {
  assertGitArg('branch', input.branch);
  assertGitArg('start point', input.startPoint);
  const target = await worktreePath(input.checkout, input.path);
  const root = await checkoutRoot(input.checkout, options);
  await serially(root, async () => {
    await clearWorktreePath(input.checkout, root, target, options);
    await runGit(['worktree', 'add', '--force', '--quiet', '-B', input.branch, target, input.startPoint], {
      ...options,
      cwd: input.checkout,
    });
  });
  return headSha(target, options);
}

/** Unregisters and deletes the worktree at `path`; a path already gone (or never added) is fine. */
export async function removeWorktree(
  checkout: string,
  path: string,
  options: GitOptions = {},
): Promise<void> {
  const target = await worktreePath(checkout, path);
  const root = await checkoutRoot(checkout, options);
  await serially(root, () => clearWorktreePath(checkout, root, target, options));
}
