import { createSerialQueue } from '../../core/serial-queue.js';
import { assertGitArg, assertSha, firstLine } from './git-args.js';
import { revParse } from './head-sha.js';
import { type RemoteCredential, withRemoteAuth } from './remote-auth.js';
import { type GitOptions, runGit } from './run-git.js';

/**
 * A remote as the harness resolved it at the start of the run, before any agent ran: its name (for
 * the tracking refs), the URL it pushes and fetches (never `remote.*.pushurl`, which the agent could
 * have set), what git needs there besides a token (`env`: the ssh agent), and where the token comes
 * from (`credential`, for GitHub's hosts only): asked at each fetch, push and ls-remote and given to
 * that git process alone as an `http.extraheader` through GIT_CONFIG_* variables, never on disk.
 */
export interface RemoteTarget {
  name: string;
  url: string;
  env?: Readonly<Record<string, string>>;
  credential?: RemoteCredential;
}

/** A remote by name or URL, as given (tests and local remotes), or as the harness resolved it. */
export type RemoteRef = string | RemoteTarget;

function targetOf(remote: RemoteRef): RemoteTarget {
  return typeof remote === 'string' ? { name: remote, url: remote } : remote;
}

/** Runs `run` with the remote's environment and the token of the moment (renewed once if refused). */
function onRemote<T>(target: RemoteTarget, options: GitOptions, run: (options: GitOptions) => Promise<T>) {
  const withEnv = target.env
    ? { ...options, env: { ...(options.env ?? process.env), ...target.env } }
    : options;
  return withRemoteAuth(target.url, target.credential, withEnv, run);
}

/** `remote.<name>.url` as configured, read once at the start of a run. */
export async function remoteUrl(checkout: string, name: string, options: GitOptions = {}): Promise<string> {
  assertGitArg('remote', name);
  const { stdout } = await runGit(['config', '--get', `remote.${name}.url`], { ...options, cwd: checkout });
  return firstLine(stdout);
}

/**
 * Fetches one branch into `refs/remotes/<remote>/<branch>` and returns its sha. Only that refspec:
 * a full fetch of a busy repository costs minutes, and tags are never needed for a worktree.
 */
/** One fetch at a time per checkout in this process: two at once fight over the ref's lock. */
const fetches = new Map<string, ReturnType<typeof createSerialQueue>>();

export async function fetchBranch(
  checkout: string,
  remote: RemoteRef,
  branch: string,
  options: GitOptions = {},
): Promise<string> {
  const target = targetOf(remote);
  assertGitArg('remote', target.name);
  assertGitArg('remote', target.url);
  assertGitArg('branch', branch);
  const tracking = `refs/remotes/${target.name}/${branch}`;
  let queue = fetches.get(checkout);
  if (!queue) {
    queue = createSerialQueue();
    fetches.set(checkout, queue);
  }
  // Sessions that start together (a round filling free workers) each fetch the base branch: one at a
  // time, or git refuses the second with "unable to update local ref".
  return queue(async () => {
    const refspec = `+refs/heads/${branch}:${tracking}`;
    await onRemote(target, options, (git) =>
      runGit(['fetch', '--prune', '--no-tags', target.url, refspec], { ...git, cwd: checkout }),
    );
    return revParse(checkout, tracking, options);
  });
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
  remote: RemoteRef,
  branch: string,
  options: GitOptions = {},
): Promise<string | undefined> {
  const target = targetOf(remote);
  assertGitArg('remote', target.url);
  assertGitArg('branch', branch);
  const ref = `refs/heads/${branch}`;
  const { stdout } = await onRemote(target, options, (git) =>
    runGit(['ls-remote', target.url, ref], { ...git, cwd: checkout }),
  );
  // ls-remote matches patterns by suffix: `refs/heads/a/refs/heads/b` would match too.
  for (const line of stdout.split('\n')) {
    const [sha, name] = line.split('\t');
    if (name === ref && sha !== undefined && sha !== '') return sha;
  }
  return undefined;
}

export interface PushBranchInput {
  remote: RemoteRef;
  branch: string;
  /** What the branch must be on the remote for the push to go ahead; undefined or '': it must not exist. */
  expectedRemoteSha: string | undefined;
  /**
   * The commit to push, when the caller has just made it (commitAll's sha): it must be the worktree's
   * HEAD. Without it HEAD is resolved here.
   */
  sha?: string;
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
  const target = targetOf(input.remote);
  assertGitArg('remote', target.url);
  assertGitArg('branch', input.branch);
  const expected = input.expectedRemoteSha ?? '';
  if (expected !== '') assertSha('expected remote sha', expected);
  const ref = `refs/heads/${input.branch}`;
  // The sha, not HEAD, goes on the command line: what we report is exactly what was pushed.
  const sha =
    input.sha === undefined ? await revParse(worktree, 'HEAD', options) : assertSha('sha', input.sha);
  const lease = `--force-with-lease=${ref}:${expected}`;
  // To the URL resolved at the start, never a pushurl; hooks are off for every harness git (run-git).
  // A refused credential moves nothing on the remote: the retry with a renewed token pushes the same lease.
  await onRemote(target, options, (git) =>
    runGit(['push', '--porcelain', lease, target.url, `${sha}:${ref}`], { ...git, cwd: worktree }),
  );
  return sha;
}
