import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommitAuthor } from './commit-all.js';
import { assertSha, firstLine } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

export type MergeStarted =
  /** The branch already holds `sha`: nothing to merge. */
  | { kind: 'up_to_date' }
  /** Merged without a conflict, staged and not committed (MERGE_HEAD is set). */
  | { kind: 'clean' }
  /** Stopped on conflicts: these paths have markers (or a delete/modify clash) to resolve. */
  | { kind: 'conflicted'; paths: string[] }
  /** Not merged: the branch changes what decides how git merges (its `.gitattributes`). */
  | { kind: 'refused'; reason: string };

/**
 * Merges `sha` into the worktree's branch without committing it: the result is staged with
 * MERGE_HEAD set, so the commit that follows (the harness's `commitAll`, after whatever resolves the
 * conflicts) is a merge commit with both parents. No rerere, no editor; a conflict is an answer
 * (exit 1), anything else a GitError.
 *
 * The branch was written by an agent, and a `.gitattributes` in it chooses how git merges (`merge=
 * union` or `binary` drop a side without a conflict, `conflict-marker-size` hides the markers, and
 * `merge=<driver>` runs a driver from the user's git config on this host): a branch that changes
 * one is not merged by the harness.
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
  const fork = firstLine((await runGit(['merge-base', 'HEAD', sha], run)).stdout);
  const attributes = await runGit(
    [
      'diff',
      '--name-only',
      '-z',
      '--no-renames',
      assertSha('merge base', fork),
      'HEAD',
      '--',
      ':(glob)**/.gitattributes',
    ],
    run,
  );
  const changed = attributes.stdout.split('\0').filter((path) => path !== '');
  if (changed.length > 0) {
    return {
      kind: 'refused',
      reason: `the branch changes ${changed.join(', ')}, which decides how git merges: the harness does not merge it`,
    };
  }
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

/** `=======` alone is not one: it is also a Markdown heading's underline. Any marker size counts. */
const MARKER = /^(?:<{7,}|>{7,})(?: |$)/m;
/** A file larger than this is not read: it is reported as unresolved, for a person to look at. */
const MAX_MARKER_SCAN = 8 * 1024 * 1024;

/**
 * The paths among `paths` still unresolved: a regular file whose text has a conflict marker line
 * (`<<<<<<< ours`, `>>>>>>> theirs`), or anything else the agent left there (a symlink, a FIFO, a
 * directory: never followed nor read). A deleted path counts as resolved.
 */
export async function withConflictMarkers(worktree: string, paths: readonly string[]): Promise<string[]> {
  const left: string[] = [];
  for (const path of paths) {
    if (!(await resolvedFile(join(worktree, path)))) left.push(path);
  }
  return left;
}

async function resolvedFile(file: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    // O_NOFOLLOW: a symlink is refused, not read; O_NONBLOCK: a FIFO cannot hold the harness.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_MARKER_SCAN) return false;
    return !MARKER.test(await handle.readFile('utf8'));
  } finally {
    await handle.close();
  }
}
