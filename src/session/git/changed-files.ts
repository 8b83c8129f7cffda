import { type GitOptions, runGit } from './run-git.js';

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface ChangedFile {
  /** Relative to the worktree root, `/`-separated, exactly as git has it (no quoting). */
  path: string;
  status: ChangeStatus;
  /** The old path of a rename. */
  from?: string;
}

function statusOf(x: string, y: string): ChangeStatus | undefined {
  if (x === '?' && y === '?') return 'added';
  // Added to the index, then deleted from the worktree: relative to HEAD nothing is left.
  if (x === 'A' && y === 'D') return undefined;
  if (x === 'D' || y === 'D') return 'deleted';
  // Unmerged states (U, AA) are content to review, whatever the side that added them.
  if (x === 'U' || y === 'U') return 'modified';
  if (x === 'A' || x === 'C') return 'added';
  return 'modified';
}

/**
 * Parses `git status --porcelain=v1 -z`: `XY path\0`, and for a rename or copy `XY new\0old\0`.
 * With -z paths come raw, so spaces, quotes and non-ASCII names need no unquoting.
 */
export function parsePorcelainZ(output: string): ChangedFile[] {
  const fields = output.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i];
    if (entry === undefined || entry.length < 4) continue;
    const x = entry.charAt(0);
    const y = entry.charAt(1);
    const path = entry.slice(3);
    if (x === 'R' || x === 'C' || y === 'R' || y === 'C') {
      i += 1;
      const from = fields[i] ?? '';
      // A copy keeps its source: only the new file is a change.
      if (x === 'C' || y === 'C') files.push({ path, status: 'added' });
      else if (y === 'D') files.push({ path: from, status: 'deleted' });
      else files.push({ path, status: 'renamed', from });
      continue;
    }
    const status = statusOf(x, y);
    if (status !== undefined) files.push({ path, status });
  }
  return files;
}

/**
 * What the worktree changed relative to HEAD, untracked files included. A move shows as `renamed`
 * once staged (`git mv`, or after `git add -A`); an unstaged move is a deletion and an addition.
 */
export async function changedFiles(worktree: string, options: GitOptions = {}): Promise<ChangedFile[]> {
  // --no-optional-locks: status must not take index.lock while an agent's own git may be running here.
  const { stdout } = await runGit(
    [
      '--no-optional-locks',
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      '--renames',
      // Asking a submodule whether it is dirty runs git in it, with its own config: the agent's.
      '--ignore-submodules=all',
    ],
    { ...options, cwd: worktree },
  );
  return parsePorcelainZ(stdout);
}
