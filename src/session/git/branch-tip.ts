import { assertGitArg, assertSha } from './git-args.js';
import { headSha } from './head-sha.js';
import { type GitOptions, runGit } from './run-git.js';

/**
 * The harness commits, not the agent: commits the agent made itself in the worktree (Claude Code
 * often commits) become staged changes on `base` again, so the diff is judged and committed once.
 * Returns true when there was anything to undo.
 */
export async function uncommitAgentWork(
  worktree: string,
  base: string,
  options: GitOptions = {},
): Promise<boolean> {
  assertSha('base', base);
  if ((await headSha(worktree, options)) === base) return false;
  await runGit(['reset', '--soft', base], { ...options, cwd: worktree });
  return true;
}

/** Puts a local branch back at `sha` (an attempt that did not deliver leaves no commit behind). */
export async function resetBranch(
  checkout: string,
  branch: string,
  sha: string,
  options: GitOptions = {},
): Promise<void> {
  assertGitArg('branch', branch);
  assertSha('sha', sha);
  await runGit(['update-ref', `refs/heads/${branch}`, sha], { ...options, cwd: checkout });
}

/**
 * Deletes a local branch the harness made for its own use (a best-of-N attempt's). A branch still
 * checked out in a worktree kept for inspection (`session.keep_worktrees`) is left: false then.
 */
export async function deleteLocalBranch(
  checkout: string,
  branch: string,
  options: GitOptions = {},
): Promise<boolean> {
  assertGitArg('branch', branch);
  try {
    await runGit(['branch', '-D', '--', branch], { ...options, cwd: checkout });
    return true;
  } catch {
    return false;
  }
}
