import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { formatInputError } from './tool-input-error.js';
import { createOutputCollector } from './trim-output.js';
import type { AgentTool, ToolOutput } from './types.js';

export interface BashToolOptions {
  /** Worktree: every command starts here. */
  root: string;
  /** Passed to commands exactly as given: the caller scrubs secrets out first. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxOutputChars: number;
}

const BashInput = z.object({
  command: z.string().optional(),
  restart: z.boolean().optional(),
});

/** Between SIGTERM and SIGKILL: long enough for a test runner to clean up, short enough not to stall. */
const KILL_GRACE_MS = 2_000;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // Negative pid: the whole process group, so `cmd &` children die with the shell.
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone. Anything else must not throw either: this runs from timers,
    // where an exception would take the whole harness down.
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The note on a line of its own, after the output however it ended. */
function withNote(output: string, note: string): string {
  return output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
}

/**
 * Runs one command with `bash -c` in the worktree. Each call is a fresh shell, not a persistent session:
 * `cd` and variables do not carry over, and nothing it starts outlives it, which keeps every call
 * independent and killable on its own.
 */
function runCommand(command: string, options: BashToolOptions, signal: AbortSignal): Promise<ToolOutput> {
  if (signal.aborted) return Promise.resolve({ isError: true, content: 'aborted' });
  return new Promise((resolve) => {
    const output = createOutputCollector(options.maxOutputChars);
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      // detached: the shell leads its own process group, which is what a timeout or abort kills.
      child = spawn('bash', ['-c', command], {
        cwd: options.root,
        env: options.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (err) {
      // Arguments node refuses outright, e.g. a NUL byte in the command.
      resolve({
        isError: true,
        content: `could not start bash: ${err instanceof Error ? err.message : String(err)}`,
      });
      return;
    }
    let ended: 'timeout' | 'aborted' | undefined;
    let spawnError: Error | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const stop = (why: 'timeout' | 'aborted') => {
      if (ended !== undefined || child.pid === undefined) return;
      ended = why;
      killGroup(child.pid, 'SIGTERM');
      graceTimer = setTimeout(() => {
        if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      }, KILL_GRACE_MS);
    };
    const onAbort = () => stop('aborted');
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });

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
      signal.removeEventListener('abort', onAbort);
      // The shell is gone, and so goes its whole group: what ignored SIGTERM, and what was started in
      // the background (`server &`), which would otherwise outlive the command and the session.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');

      const text = output.text();
      if (ended === 'aborted') resolve({ isError: true, content: 'aborted' });
      else if (ended === 'timeout') {
        const note = `[command timed out after ${formatSeconds(options.timeoutMs)}; its process group was killed]`;
        resolve({ isError: true, content: withNote(text, note) });
      } else if (spawnError !== undefined && child.pid === undefined) {
        resolve({ isError: true, content: `could not start bash: ${spawnError.message}` });
      } else if (code === 0) resolve({ isError: false, content: text === '' ? '(no output)' : text });
      else if (code !== null) resolve({ isError: true, content: withNote(text, `[exit code ${code}]`) });
      else
        resolve({ isError: true, content: withNote(text, `[killed by signal ${exitSignal ?? 'unknown'}]`) });
    });
  });
}

export function createBashTool(options: BashToolOptions): AgentTool {
  return {
    name: 'bash',
    definition: { type: 'bash_20250124', name: 'bash' },
    async run(input, signal) {
      const parsed = BashInput.safeParse(input);
      if (!parsed.success) return { isError: true, content: formatInputError('bash', parsed.error) };
      // Nothing persists between commands, so a restart has nothing to reset.
      if (parsed.data.restart === true) return { isError: false, content: 'tool has been restarted.' };
      const command = parsed.data.command;
      if (command === undefined || command.trim() === '') {
        return { isError: true, content: 'bash: give a non-empty "command" (or "restart": true).' };
      }
      return runCommand(command, options, signal);
    },
  };
}
