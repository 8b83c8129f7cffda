import { assertGitArg, assertSha, firstLine } from './git-args.js';
import { revParse } from './head-sha.js';
import { type GitOptions, runGit } from './run-git.js';

/**
 * Fetches one branch into `refs/remotes/<remote>/<branch>` and returns its sha. Only that refspec:
 * a full fetch of a busy repository costs minutes, and tags are never needed for a worktree.
 */
export async function fetchBranch(
  checkout: string,
  remote: string,
  branch: string,
  options: GitOptions = {},
): Promise<string> {
  assertGitArg('remote', remote);
  assertGitArg('branch', branch);
  const tracking = `refs/remotes/${remote}/${branch}`;
  await runGit(['fetch', '--prune', '--no-tags', remote, `+refs/heads/${branch}:${tracking}`], {
    ...options,
    cwd: checkout,
  });
  return revParse(checkout, tracking, options);
}

/**
 * The remote's default branch as the clone recorded it (`refs/remotes/<remote>/HEAD`), e.g. `main`.
 * Undefined when it was never recorded (a fetch-only remote, `git remote set-head -d`): the caller
 * then asks GitHub.
 */
export async function defaultRemoteBranch(
  checkout: string,
  remote: string,
  options: GitOptions = {},
): Promise<string | undefined> {
  assertGitArg('remote', remote);
  const prefix = `refs/remotes/${remote}/`;
  // --quiet: a missing or non-symbolic ref is exit 1 with no output, an answer rather than a failure.
  const result = await runGit(['symbolic-ref', '--quiet', `${prefix}HEAD`], {
    ...options,
    cwd: checkout,
    okExitCodes: [1],
  });
  if (result.exitCode !== 0) return undefined;
  const target = firstLine(result.stdout);
  return target.startsWith(prefix) && target.length > prefix.length ? target.slice(prefix.length) : undefined;
}

/** The sha of `refs/heads/<branch>` on the remote itself (not the local tracking ref), if it exists. */
export async function remoteBranchSha(
  checkout: string,
  remote: string,
  branch: string,
  options: GitOptions = {},
): Promise<string | undefined> {
  assertGitArg('remote', remote);
  assertGitArg('branch', branch);
  const ref = `refs/heads/${branch}`;
  const { stdout } = await runGit(['ls-remote', remote, ref], { ...options, cwd: checkout });
  // ls-remote matches patterns by suffix: `refs/heads/a/refs/heads/b` would match too.
  for (const line of stdout.split('\n')) {
    const [sha, name] = line.split('\t');
    if (name === ref && sha !== undefined && sha !== '') return sha;
  }
  return undefined;
}

export interface PushBranchInput {
  remote: string;
  branch: string;
  /** What the branch must be on the remote for the push to go ahead; undefined or '': it must not exist. */
  expectedRemoteSha: string | undefined;
}

/**
 * Pushes the worktree's HEAD to `refs/heads/<branch>`, overwriting only what we expect to be there:
 * a lease that no longer holds (someone else pushed) fails as a GitError with errorClass `conflict`
 * and leaves the remote untouched. Returns the pushed sha.
 */
export async function pushBranch(
  worktree: string,
  input: PushBranchInput,
  options: GitOptions = {},
): Promise<string> {
  assertGitArg('remote', input.remote);
  assertGitArg('branch', input.branch);
  const expected = input.expectedRemoteSha ?? '';
  if (expected !== '') assertSha('expected remote sha', expected);
  const ref = `refs/heads/${input.branch}`;
  // The sha, not HEAD, goes on the command line: what we report is exactly what was pushed.
  const sha = await revParse(worktree, 'HEAD', options);
  const lease = `--force-with-lease=${ref}:${expected}`;
  // hooksPath: a repository's pre-push hook may run a test suite or prompt; the harness verifies itself.
  await runGit(
    ['-c', 'core.hooksPath=/dev/null', 'push', '--porcelain', lease, input.remote, `${sha}:${ref}`],
    {
      ...options,
      cwd: worktree,
    },
  );
  return sha;
}
