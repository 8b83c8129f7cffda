import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { killGroup, stopGroup } from '../../core/process-group.js';
import { type CommandSandbox, UNSANDBOXED } from '../../sandbox/sandbox.js';
import { spawnSandboxed } from '../../sandbox/spawn-sandboxed.js';
import { createOutputCollector } from './trim-output.js';

export interface ShellOptions {
  cwd: string;
  /** Passed exactly as given: the caller scrubs secrets out first. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxOutputChars: number;
  signal: AbortSignal;
  /** Where the command runs: inside bubblewrap, or (only when the user chose it) as it is. */
  sandbox?: CommandSandbox;
}

export interface ShellResult {
  /** stdout and stderr interleaved, trimmed to head and tail. */
  output: string;
  /** The shell's exit code; null when it was killed by a signal or never started. */
  exitCode: number | null;
  exitSignal?: string;
  /** How the command was stopped by us, when it was. */
  ended?: 'timeout' | 'aborted';
  /** Why bash could not be started at all. */
  spawnError?: string;
}

/**
 * Runs one command with `bash -c` in `cwd`, stdin closed, as the leader of its own process group.
 * The group is killed on timeout or abort (SIGTERM, then SIGKILL after a grace) and, with SIGKILL,
 * when the shell ends: nothing a command starts outlives it. Output is bounded however much there is.
 */
export function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  if (options.signal.aborted) return Promise.resolve({ output: '', exitCode: null, ended: 'aborted' });
  return new Promise((resolve) => {
    const output = createOutputCollector(options.maxOutputChars);
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      // Its own process group (bwrap's, around the shell), which is what a timeout or abort kills;
      // inside bwrap, the end of its PID namespace takes everything else.
      child = spawnSandboxed(options.sandbox ?? UNSANDBOXED, ['bash', '-c', command], {
        cwd: options.cwd,
        env: options.env,
        stdin: 'ignore',
      }) as ChildProcessByStdio<null, Readable, Readable>;
    } catch (err) {
      // Arguments node refuses outright, e.g. a NUL byte in the command.
      resolve({ output: '', exitCode: null, spawnError: err instanceof Error ? err.message : String(err) });
      return;
    }
    let ended: 'timeout' | 'aborted' | undefined;
    let spawnError: Error | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const stop = (why: 'timeout' | 'aborted') => {
      if (ended !== undefined || child.pid === undefined) return;
      ended = why;
      graceTimer = stopGroup(child.pid);
    };
    const onAbort = () => stop('aborted');
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    options.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => output.push(chunk));
    child.stderr.on('data', (chunk: string) => output.push(chunk));
    child.on('error', (err) => {
      spawnError ??= err;
    });
    // 'close' comes after the pipes drain (and after 'error' when bash could not start at all).
    child.on('close', (code, exitSignal) => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal.removeEventListener('abort', onAbort);
      // The shell is gone, and so goes its whole group: what ignored SIGTERM, and what was started in
      // the background (`server &`), which would otherwise outlive the command and the session.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      if (spawnError !== undefined && child.pid === undefined) {
        resolve({ output: '', exitCode: null, spawnError: spawnError.message });
        return;
      }
      resolve({
        output: output.text(),
        exitCode: code,
        ...(exitSignal ? { exitSignal } : {}),
        ...(ended ? { ended } : {}),
      });
    });
  });
}
