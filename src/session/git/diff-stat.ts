import { assertGitArg } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

export interface DiffStat {
  files: number;
  insertions: number;
  deletions: number;
}

/** Sums `git diff --numstat` output; a binary file (`-\t-\tpath`) counts as a file with no lines. */
export function parseNumstat(output: string): DiffStat {
  const stat: DiffStat = { files: 0, insertions: 0, deletions: 0 };
  for (const line of output.split('\n')) {
    const [added, deleted] = line.split('\t');
    if (added === undefined || deleted === undefined) continue;
    stat.files += 1;
    stat.insertions += Number.parseInt(added, 10) || 0;
    stat.deletions += Number.parseInt(deleted, 10) || 0;
  }
  return stat;
}

/**
 * How much the worktree (committed or not, untracked files excluded) differs from `base`. A rename
 * is one file, counted by its changed lines only.
 */
export async function diffStat(worktree: string, base: string, options: GitOptions = {}): Promise<DiffStat> {
  assertGitArg('base revision', base);
  // --no-ext-diff/--no-textconv: a configured driver must neither run nor change the line counts.
  const { stdout } = await runGit(
    ['diff', '--numstat', '--find-renames', '--no-ext-diff', '--no-textconv', base, '--'],
    {
      ...options,
      cwd: worktree,
    },
  );
  return parseNumstat(stdout);
}
