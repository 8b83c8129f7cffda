import { assertSha } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

/** One path the commit would change against a base, as git's tree records it. */
export interface StagedEntry {
  /** Exactly as git has it: `/`-separated, unquoted (newlines and all). */
  path: string;
  /** `100644`, `100755`, `120000` (a symlink), `160000` (a submodule), `000000` (absent on that side). */
  oldMode: string;
  newMode: string;
  /** The new blob (a symlink's target is its content); all zeros when the path is deleted. */
  newSha: string;
}

export const SYMLINK_MODE = '120000';

/**
 * Every path the worktree would commit against `base`: stages it all (`add -A`, as the commit will)
 * and lists the index's differences. Without rename detection a move is a deletion and an addition,
 * so both of its paths are listed; -z keeps names raw.
 */
export async function stagedEntries(
  worktree: string,
  base: string,
  options: GitOptions = {},
): Promise<StagedEntry[]> {
  assertSha('base', base);
  const run = { ...options, cwd: worktree };
  await runGit(['add', '-A'], run);
  const { stdout } = await runGit(
    ['diff', '--cached', '--raw', '-z', '--no-abbrev', '--no-renames', '--no-ext-diff', base, '--'],
    run,
  );
  return parseRawZ(stdout);
}

/** `:old new oldsha newsha S\0path\0`, repeated. */
export function parseRawZ(output: string): StagedEntry[] {
  const fields = output.split('\0');
  const entries: StagedEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = /^:(\d{6}) (\d{6}) [0-9a-f]+ ([0-9a-f]+) [A-Z]\d*$/.exec(fields[i] ?? '');
    const path = fields[i + 1];
    if (!meta || path === undefined) continue;
    entries.push({ path, oldMode: meta[1] ?? '', newMode: meta[2] ?? '', newSha: meta[3] ?? '' });
  }
  return entries;
}

/** A symlink's target as committed (its blob), at most 4 KiB of it. */
export async function symlinkTarget(
  worktree: string,
  sha: string,
  options: GitOptions = {},
): Promise<string> {
  assertSha('blob', sha);
  const { stdout } = await runGit(['cat-file', 'blob', sha], { ...options, cwd: worktree });
  return stdout.slice(0, 4_096);
}
