import { assertSha } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

/**
 * Everything the worktree would commit, against `base`: stages it all (`add -A`, as the commit will)
 * and returns the unified diff with no context, binary files as text (a secret in a file with a NUL
 * byte is still a secret), and no external diff or textconv driver.
 */
export async function stagedDiff(worktree: string, base: string, options: GitOptions = {}): Promise<string> {
  assertSha('base', base);
  const run = { ...options, cwd: worktree };
  await runGit(['add', '-A'], run);
  const { stdout } = await runGit(
    [
      'diff',
      '--cached',
      '--no-ext-diff',
      '--no-textconv',
      '--no-color',
      '--no-renames',
      '--text',
      '-U0',
      base,
      '--',
    ],
    run,
  );
  return stdout;
}
