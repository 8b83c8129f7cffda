import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommitAuthor } from './commit-all.js';
import { assertSha } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

export type MergeStarted =
  /** The branch already holds `sha`: nothing to merge. */
  | { kind: 'up_to_date' }
  /** Merged without a conflict, staged and not committed (MERGE_HEAD is set). */
  | { kind: 'clean' }
  /** Stopped on conflicts: these paths have markers (or a delete/modify clash) to resolve. */
  | { kind: 'conflicted'; paths: string[] };

/**
 * Merges `sha` into the worktree's branch without committing it: the result is staged with
 * MERGE_HEAD set, so the commit that follows (the harness's `commitAll`, after whatever resolves the
 * conflicts) is a merge commit with both parents. No rerere, no editor; a conflict is an answer
 * (exit 1), anything else a GitError.
 */
export async function startMerge(
  worktree: string,
  merge: { sha: string; author: CommitAuthor },
  options: GitOptions = {},
): Promise<MergeStarted> {
  const sha = assertSha('merge', merge.sha);
  const run = { ...options, cwd: worktree };
  const before = await runGit(['merge-base', '--is-ancestor', sha, 'HEAD'], { ...run, okExitCodes: [1] });
  if (before.exitCode === 0) return { kind: 'up_to_date' };
  // git wants a committer even for a merge it does not commit; the commit itself sets its own.
  const { name, email } = merge.author;
  const merged = await runGit(
    ['-c', `user.name=${name}`, '-c', `user.email=${email}`, '-c', 'rerere.enabled=false'].concat([
      'merge',
      '--no-commit',
      '--no-ff',
      '--no-edit',
      '--quiet',
      sha,
    ]),
    { ...run, okExitCodes: [1] },
  );
  if (merged.exitCode === 0) return { kind: 'clean' };
  const { stdout } = await runGit(['diff', '--name-only', '-z', '--diff-filter=U'], run);
  const paths = stdout.split('\0').filter((path) => path !== '');
  // Exit 1 without an unmerged path is not a conflict git could name (e.g. untracked files in the way).
  if (paths.length === 0) throw new Error(`git merge ${sha.slice(0, 12)} failed: ${merged.stderr.trim()}`);
  return { kind: 'conflicted', paths };
}

/** `=======` alone is not one: it is also a Markdown heading's underline. */
const MARKER = /^(?:<{7}|>{7})(?: |$)/m;

/** The paths among `paths` whose text still has a conflict marker line (`<<<<<<< ours`, `>>>>>>> theirs`). */
export async function withConflictMarkers(worktree: string, paths: readonly string[]): Promise<string[]> {
  const left: string[] = [];
  for (const path of paths) {
    const text = await readFile(join(worktree, path), 'utf8').catch(() => undefined);
    if (text !== undefined && MARKER.test(text)) left.push(path);
  }
  return left;
}
