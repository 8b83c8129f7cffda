import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IssueloopError } from '../../core/errors.js';
import type { WorktreeGitDirs } from '../../sandbox/git-view.js';

/** What of the shared git can make the harness's own git run a program or send elsewhere. */
function watchedFiles(dirs: WorktreeGitDirs): string[] {
  return [
    join(dirs.common, 'config'),
    join(dirs.common, 'info', 'attributes'),
    join(dirs.common, 'commondir'),
    join(dirs.admin, 'config.worktree'),
    join(dirs.admin, 'commondir'),
    join(dirs.admin, 'gitdir'),
    join(dirs.admin, 'info', 'attributes'),
  ];
}

/** Content digest of each watched file and of the hooks directory (absent is a state too). */
export type GitState = ReadonlyMap<string, string>;

async function digest(path: string): Promise<string> {
  try {
    return createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  } catch {
    return 'absent';
  }
}

async function hooksDigest(dir: string): Promise<string> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return 'absent';
  }
  const hash = createHash('sha256');
  for (const name of names) hash.update(`${name}\0${await digest(join(dir, name))}\0`);
  return hash.digest('hex');
}

export async function snapshotGitState(dirs: WorktreeGitDirs): Promise<GitState> {
  const state = new Map<string, string>();
  for (const file of watchedFiles(dirs)) state.set(file, await digest(file));
  state.set(join(dirs.common, 'hooks'), await hooksDigest(join(dirs.common, 'hooks')));
  return state;
}

/** The shared git changed while the agent worked: its config, hooks or attributes are not the harness's. */
export class GitTamperedError extends IssueloopError {
  readonly paths: string[];
  constructor(paths: string[]) {
    super(
      'git_tampered',
      `the agent changed git's own files (${paths.join(', ')}); nothing was committed or pushed`,
    );
    this.paths = paths;
  }
}

/**
 * Compares the shared git with the snapshot taken before the agent started. Under the sandbox these
 * files are read-only to the agent and this never fires; under `sandbox.mode: none` it is what keeps
 * the harness from running the agent's hooks, filters or URL rewrites with its credentials.
 */
export async function assertGitUntouched(dirs: WorktreeGitDirs, before: GitState): Promise<void> {
  const now = await snapshotGitState(dirs);
  const changed = [...before].filter(([path, hash]) => now.get(path) !== hash).map(([path]) => path);
  if (changed.length > 0) throw new GitTamperedError(changed);
}
