import { spawn } from 'node:child_process';
import { killGroup, stopGroup } from '../../core/process-group.js';

export interface SpawnGitOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  input: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
}

/** How one git process ended; `stopped` when we ended it, `spawnError` when it never started. */
export interface GitOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  stopped?: 'aborted' | 'timeout' | 'output_limit';
  spawnError?: Error;
}

/**
 * Starts git in a process group of its own, so that stopping it (abort, timeout) also stops what it
 * started: ssh, git-remote-https, upload-pack. Git does not pass a SIGTERM on to them, and they would
 * otherwise hold the connection (and the pack lock) after the run gave up. The new session also has
 * no controlling terminal, so ssh cannot prompt on /dev/tty either.
 */
export function spawnGit(args: readonly string[], options: SpawnGitOptions): Promise<GitOutcome> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let stopped: GitOutcome['stopped'];
    let spawnError: Error | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const child = spawn('git', [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });

    const stop = (why: NonNullable<GitOutcome['stopped']>) => {
      if (stopped !== undefined || child.pid === undefined) return;
      stopped = why;
      graceTimer = stopGroup(child.pid);
    };
    const onAbort = () => stop('aborted');
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > options.maxOutputBytes) stop('output_limit');
      else into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    child.on('error', (err) => {
      spawnError ??= err;
    });
    child.stdin.on('error', () => {
      // EPIPE when git exits before reading its input; the exit status reports the real failure.
    });
    child.stdin.end(options.input);

    // 'close' comes after the pipes drain, and also after 'error' when git could not start at all.
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Git is gone; what it started and what ignored SIGTERM goes with its group.
      if (stopped !== undefined && child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      const outcome: GitOutcome = {
        // Decoded once at the end: a chunk boundary may split a multi-byte character.
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        exitCode: code ?? undefined,
      };
      if (stopped !== undefined) outcome.stopped = stopped;
      if (spawnError !== undefined && child.pid === undefined) outcome.spawnError = spawnError;
      resolve(outcome);
    });
  });
}
