import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorktreeGitDirs } from '../../agent/exec/git-view.js';
import { parseConfigList, sanitizedGitConfig } from '../../agent/exec/git-view.js';
import { assertGitArg } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

/** The worktree's admin directory and the shared `.git`, read right after the harness made it. */
export async function worktreeGitDirs(worktree: string, options: GitOptions = {}): Promise<WorktreeGitDirs> {
  const { stdout } = await runGit(['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir'], {
    ...options,
    cwd: worktree,
  });
  const [admin, common] = stdout.split('\n').map((line) => line.trim());
  if (!admin || !common) throw new Error(`git rev-parse gave no git directories for ${worktree}`);
  return { admin, common };
}

/**
 * Options for the harness's git in the worktree: GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE given
 * outright, so the worktree's `.git` file (the agent can rewrite it to point at a repository it made,
 * with hooks and config of its own) is never read.
 */
export function inWorktree(options: GitOptions, dirs: WorktreeGitDirs, worktree: string): GitOptions {
  return {
    ...options,
    env: {
      ...(options.env ?? process.env),
      GIT_DIR: dirs.admin,
      GIT_COMMON_DIR: dirs.common,
      GIT_WORK_TREE: worktree,
    },
  };
}

/** Writes the sanitised copy of the shared config that the sandbox shows instead of the real one. */
export async function writeCleanConfig(
  dirs: WorktreeGitDirs,
  target: string,
  options: GitOptions = {},
): Promise<void> {
  // --no-includes: an include is a file elsewhere, whose keys this copy would not vet.
  const { stdout } = await runGit(
    ['config', '--file', join(dirs.common, 'config'), '--no-includes', '--list', '-z'],
    { ...options, cwd: dirs.common },
  );
  await writeFile(target, sanitizedGitConfig(parseConfigList(stdout)), { mode: 0o600 });
}

/**
 * Points the worktree's HEAD back at the session's branch: the agent can write HEAD (it lives in the
 * worktree's admin directory) to make the harness's commit land on another branch.
 */
export async function pinHead(worktree: string, branch: string, options: GitOptions): Promise<void> {
  assertGitArg('branch', branch);
  await runGit(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { ...options, cwd: worktree });
}
