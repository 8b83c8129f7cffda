import { assertGitArg } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

/**
 * The names at the top of `rev`'s tree in the repository at `cwd` (files and directories), read from
 * git, not from a worktree: what a revision holds, whatever an agent wrote since.
 */
export async function topLevelNames(cwd: string, rev: string, options: GitOptions = {}): Promise<string[]> {
  assertGitArg('revision', rev);
  const { stdout } = await runGit(['ls-tree', '-z', '--name-only', '--end-of-options', rev], {
    ...options,
    cwd,
  });
  return stdout.split('\0').filter((name) => name.length > 0);
}
