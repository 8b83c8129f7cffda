import { type CliIo, runCli } from '../../src/cli/run-cli.js';
import type { CliResult } from './cli.js';

/** What a spawned CLI would get from its process, for the in-process run: a terminal, an interrupt. */
export type InProcessIo = Partial<
  Pick<CliIo, 'confirm' | 'interrupt' | 'fetch' | 'isTTY' | 'noCursor' | 'color' | 'githubWriteSpacingMs'>
>;

/**
 * The CLI's own entry (`runCli`, what `main.ts` calls) in this process, with the same result as
 * `runBuiltCli`: the exit code and everything written to stdout and stderr. The environment is built
 * from scratch the same way (PATH and HOME only, then `env`), so no real token reaches a command.
 * For the logic of a command; the process-level behaviour (shebang, signals, EPIPE) needs the binary.
 * GitHub writes are not paced (the emulators need no pacing, as in the demo) unless `io` says so.
 */
export async function runInProcess(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; io?: InProcessIo } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli({
    argv: args,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    cwd: options.cwd ?? process.cwd(),
    nodeVersion: process.version,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    githubWriteSpacingMs: 0,
    ...options.io,
  });
  return { code, stdout, stderr };
}
