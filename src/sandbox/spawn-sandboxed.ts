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
 * group), with stdout and stderr piped. The descriptors the sandbox opened for the child (its seccomp
 * filter) go to it as fd 3, 4, … and are closed here once the child has them; those it holds for the
 * child (the session's namespaces, opened by path) are closed when the child ends.
 */
export function spawnSandboxed(
  sandbox: CommandSandbox,
  argv: readonly string[],
  options: SandboxedSpawnOptions,
): ChildProcess {
  const env = sandbox.env(options.env);
  const { file, args, fds = [], held = [] } = sandbox.wrap(argv, options.cwd, env);
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env,
      stdio: [options.stdin, 'pipe', 'pipe', ...fds],
      detached: true,
    });
  } catch (err) {
    for (const fd of held) closeSync(fd);
    throw err;
  } finally {
    for (const fd of fds) closeSync(fd);
  }
  if (held.length > 0) {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const fd of held) closeSync(fd);
    };
    child.once('exit', release);
    child.once('error', release);
  }
  return child;
}
