import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import type { CommandSandbox } from './sandbox.js';

export interface SandboxedSpawnOptions {
  cwd: string;
  /** The environment inside, before the sandbox's own additions (HOME, TMPDIR, proxy). */
  env: Readonly<Record<string, string>>;
  /** `pipe` to write the command's input; `ignore` closes it at once. */
  stdin: 'pipe' | 'ignore';
}

/**
 * Starts `argv` in `sandbox` as the leader of its own process group (a timeout or an abort kills the
 * group), with stdout and stderr piped. The descriptors the sandbox opened (its seccomp filter, the
 * session's namespaces) go to the child as fd 3, 4, … and are closed here once the child has them.
 */
export function spawnSandboxed(
  sandbox: CommandSandbox,
  argv: readonly string[],
  options: SandboxedSpawnOptions,
): ChildProcess {
  const { file, args, fds = [] } = sandbox.wrap(argv, options.cwd);
  try {
    return spawn(file, args, {
      cwd: options.cwd,
      env: sandbox.env(options.env),
      stdio: [options.stdin, 'pipe', 'pipe', ...fds],
      detached: true,
    });
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}
