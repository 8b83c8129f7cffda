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
 * group), with stdout and stderr piped. The descriptor the sandbox opened for its seccomp filter
 * goes to the child as fd 3 and is closed here once the child has it.
 */
export function spawnSandboxed(
  sandbox: CommandSandbox,
  argv: readonly string[],
  options: SandboxedSpawnOptions,
): ChildProcess {
  const { file, args, fd3 } = sandbox.wrap(argv, options.cwd);
  try {
    return spawn(file, args, {
      cwd: options.cwd,
      env: sandbox.env(options.env),
      stdio: fd3 === undefined ? [options.stdin, 'pipe', 'pipe'] : [options.stdin, 'pipe', 'pipe', fd3],
      detached: true,
    });
  } finally {
    if (fd3 !== undefined) closeSync(fd3);
  }
}
