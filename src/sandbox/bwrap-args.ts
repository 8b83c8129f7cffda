/**
 * bubblewrap's command line for one sandboxed command, built from an ordered list of mounts. Order is
 * meaning here: bwrap applies mounts in argument order, so a tmpfs hides what was mounted below it
 * before and the binds that come after it show through (the home is a tmpfs, the worktree inside it
 * a bind).
 */

export type Mount =
  | { kind: 'ro-bind' | 'bind'; source: string; dest: string }
  | { kind: 'tmpfs'; dest: string }
  | { kind: 'symlink'; target: string; dest: string }
  | { kind: 'dir'; dest: string };

export interface BwrapInvocation {
  mounts: readonly Mount[];
  /**
   * `own`: a network namespace of its own with only loopback; `inherit`: the one bwrap starts in,
   * which is a session holder's (net-holder.ts), joined with nsenter, never the host's.
   */
  network: 'own' | 'inherit';
  /**
   * `deny` (the default): no further user namespace inside. `allow`, for the network holder alone,
   * also leaves out the minimal /dev: run unprivileged, bwrap maps root to mount devpts and then
   * moves into a second user namespace, which does not own the network namespace, so nothing could
   * join it (nsenter: EPERM).
   */
  userns?: 'deny' | 'allow';
  cwd: string;
  /** The command and its arguments, run as given (no shell is added here). */
  argv: readonly string[];
  /** The child's descriptor holding the seccomp filter (seccomp.ts), when there is one. */
  seccompFd?: number;
}

export const SANDBOX_HOSTNAME = 'issueloop-sandbox';

function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case 'ro-bind':
      return ['--ro-bind', mount.source, mount.dest];
    case 'bind':
      return ['--bind', mount.source, mount.dest];
    case 'tmpfs':
      return ['--tmpfs', mount.dest];
    case 'symlink':
      return ['--symlink', mount.target, mount.dest];
    case 'dir':
      return ['--dir', mount.dest];
  }
}

/**
 * Every namespace bwrap can make (user, PID, IPC, UTS, cgroup, and network unless `inherit`), no
 * capability and no further user namespace, a fresh
 * /proc for the new PID namespace (so no issueloop process, nor its environment, is visible), a
 * minimal /dev, a new session (no TIOCSTI into the harness's terminal), and death with the parent.
 * When the command's first process ends, the PID namespace ends with it: the kernel kills whatever
 * it left running, `setsid` daemons included.
 */
export function bwrapArgs(invocation: BwrapInvocation): string[] {
  // Run as root, bwrap keeps every capability unless told otherwise: `mount -o remount,rw` of a
  // read-only bind then writes the host's /usr (found by the security review). No capability, and no
  // nested user namespace to win them back in.
  const args = ['--unshare-all', '--unshare-user'];
  if (invocation.userns !== 'allow') args.push('--disable-userns');
  args.push('--cap-drop', 'ALL');
  if (invocation.network === 'inherit') args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--hostname', SANDBOX_HOSTNAME);
  for (const mount of invocation.mounts) args.push(...mountArgs(mount));
  if (invocation.seccompFd !== undefined) args.push('--seccomp', String(invocation.seccompFd));
  args.push('--proc', '/proc');
  if (invocation.userns !== 'allow') args.push('--dev', '/dev');
  args.push('--chdir', invocation.cwd, '--', ...invocation.argv);
  return args;
}
