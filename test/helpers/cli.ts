import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The executable package.json's bin names: the bundle scripts/bundle-cli.mjs builds from dist/'s source. */
export const CLI = fileURLToPath(new URL('../../dist/bin/issueloop.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `issueloop` as a user would: a separate Node process with its own environment.
 * The environment is built from scratch (PATH and HOME only) so no real token leaks into a test.
 */
export function runBuiltCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; wrap?: readonly string[] } = {},
): Promise<CliResult> {
  return runNodeScript(CLI, args, options);
}

/**
 * Any built script (the CLI, the action's bundle) in its own Node process, with only PATH, HOME and
 * `env`; with `wrap`, under that command (`bwrap …` to run it with part of the filesystem read-only).
 */
export function runNodeScript(
  script: string,
  args: readonly string[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    wrap?: readonly string[];
    /** Options for Node itself, before the script (`--import …`). */
    nodeArgs?: readonly string[];
  } = {},
): Promise<CliResult> {
  const [command = process.execPath, ...prefix] = [...(options.wrap ?? []), process.execPath];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...(options.nodeArgs ?? []), script, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A stack frame line, as Node prints them: nothing a user should ever see for a usage error. */
export const STACK_FRAME = /^\s+at .+[(:]\d+/m;
