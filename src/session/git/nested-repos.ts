import type { Dirent } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * Removes every `.git` (directory or file) below the worktree's root, and returns where they were.
 * A nested repository is the agent's: git started in it reads its config, and `git add` asks a
 * submodule directory for its status by running git there, so the agent's clean filter ran on the
 * host (found by the security review). Nothing of a nested `.git` would be committed anyway; its
 * files stay and are judged as files. Symlinks are not followed.
 */
export async function removeNestedGitDirs(worktree: string): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.name.toLowerCase() === '.git') {
        if (dir === worktree) continue;
        await rm(path, { recursive: true, force: true });
        removed.push(relative(worktree, path));
      } else if (entry.isDirectory()) {
        await walk(path);
      }
    }
  };
  await walk(worktree);
  return removed;
}
