import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorktreeGitDirs } from '../../sandbox/git-view.js';
import { parseConfigList, sanitizedGitConfig } from '../../sandbox/git-view.js';
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

/**
 * Makes the private git dir the sandbox shows in place of the worktree's admin directory (see
 * gitViewMounts): the clean config, HEAD on the session's branch, every ref of the repository as a
 * packed copy, the worktree's index (so `git status` starts where the harness left it), the user's
 * excludes, and an empty object store that borrows the repository's. Made before the agent starts,
 * from the harness's own reads; `target` must not exist yet.
 */
export async function writeAgentGitDir(
  dirs: WorktreeGitDirs,
  branch: string,
  target: string,
  options: GitOptions = {},
): Promise<void> {
  assertGitArg('branch', branch);
  // --no-includes: an include is a file elsewhere, whose keys the clean copy would not vet.
  const [config, refs] = await Promise.all([
    runGit(['config', '--file', join(dirs.common, 'config'), '--no-includes', '--list', '-z'], {
      ...options,
      cwd: dirs.common,
    }),
    runGit(['for-each-ref', '--format=%(objectname) %(refname)'], { ...options, cwd: dirs.common }),
  ]);
  await rm(target, { recursive: true, force: true });
  await mkdir(join(target, 'objects', 'info'), { recursive: true });
  await mkdir(join(target, 'refs', 'heads'), { recursive: true });
  await mkdir(join(target, 'refs', 'tags'), { recursive: true });
  await mkdir(join(target, 'info'), { recursive: true });
  await Promise.all([
    writeFile(join(target, 'config'), sanitizedGitConfig(parseConfigList(config.stdout)), { mode: 0o600 }),
    writeFile(join(target, 'HEAD'), `ref: refs/heads/${branch}\n`),
    writeFile(join(target, 'packed-refs'), `# pack-refs with: peeled sorted\n${refs.stdout}`),
    writeFile(join(target, 'objects', 'info', 'alternates'), `${join(dirs.common, 'objects')}\n`),
    copyFile(join(dirs.admin, 'index'), join(target, 'index')).catch(() => undefined),
    copyFile(join(dirs.common, 'info', 'exclude'), join(target, 'info', 'exclude')).catch(() => undefined),
  ]);
}

/**
 * Points the worktree's HEAD back at the session's branch: the agent can write HEAD (it lives in the
 * worktree's admin directory) to make the harness's commit land on another branch.
 */
export async function pinHead(worktree: string, branch: string, options: GitOptions): Promise<void> {
  assertGitArg('branch', branch);
  await runGit(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { ...options, cwd: worktree });
}
