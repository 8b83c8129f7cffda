import { z } from 'zod';
import type { CommandSandbox } from '../../sandbox/sandbox.js';
import { runShell } from './run-shell.js';
import { formatInputError } from './tool-input-error.js';
import type { AgentTool, ToolOutput } from './types.js';

export interface BashToolOptions {
  /** Worktree: every command starts here. */
  root: string;
  /** Passed to commands exactly as given: the caller scrubs secrets out first. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxOutputChars: number;
  /** Where commands run: the session's bubblewrap sandbox (unconfined only under `sandbox.mode: none`). */
  sandbox?: CommandSandbox;
}

const BashInput = z.object({
  command: z.string().optional(),
  restart: z.boolean().optional(),
});

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The note on a line of its own, after the output however it ended. */
function withNote(output: string, note: string): string {
  return output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
}

/**
 * One command in the worktree. Each call is a fresh shell, not a persistent session: `cd` and
 * variables do not carry over, and nothing it starts outlives it, which keeps every call independent
 * and killable on its own.
 */
async function runCommand(
  command: string,
  options: BashToolOptions,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const result = await runShell(command, {
    cwd: options.root,
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxOutputChars: options.maxOutputChars,
    signal,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  const text = result.output;
  if (result.ended === 'aborted') return { isError: true, content: 'aborted' };
  if (result.ended === 'timeout') {
    const note = `[command timed out after ${formatSeconds(options.timeoutMs)}; its process group was killed]`;
    return { isError: true, content: withNote(text, note) };
  }
  if (result.spawnError !== undefined)
    return { isError: true, content: `could not start bash: ${result.spawnError}` };
  if (result.exitCode === 0) return { isError: false, content: text === '' ? '(no output)' : text };
  if (result.exitCode !== null)
    return { isError: true, content: withNote(text, `[exit code ${result.exitCode}]`) };
  return { isError: true, content: withNote(text, `[killed by signal ${result.exitSignal ?? 'unknown'}]`) };
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
