import { runCli } from '../../src/cli/run-cli.js';
import type { CliResult } from '../helpers/cli.js';

/**
 * `issueloop <argv>` in this process: what `runBuiltCli` checks of a command's logic (exit code,
 * stdout, stderr) without starting Node. The environment is built from scratch (PATH and HOME only,
 * as `runBuiltCli` does) and fetch reaches nothing, so doctor's remote checks never leave the machine.
 */
export async function runCliInProcess(
  argv: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  const out = { stdout: '', stderr: '' };
  const code = await runCli({
    argv,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    cwd: options.cwd,
    nodeVersion: process.version,
    stdout: (text) => {
      out.stdout += text;
    },
    stderr: (text) => {
      out.stderr += text;
    },
    fetch: () => Promise.reject(new Error('no network in this test')),
  });
  return { code, ...out };
}
