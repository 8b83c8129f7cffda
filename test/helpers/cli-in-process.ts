import { type CliIo, runCli } from '../../src/cli/run-cli.js';
import type { CliResult } from './cli.js';

/** What a spawned CLI would get from its process, for the in-process run: a terminal, an interrupt. */
export type InProcessIo = Partial<
  Pick<
    CliIo,
    'confirm' | 'interrupt' | 'fetch' | 'isTTY' | 'noCursor' | 'color' | 'githubWriteSpacingMs' | 'binPath'
  >
>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The real fetch for the emulators on 127.0.0.1 and ::1; a refusal for any other host. */
function loopbackFetch(resource: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(resource instanceof Request ? resource.url : resource);
  if (!LOOPBACK.has(url.hostname)) return Promise.reject(new Error(`no network in tests: ${url.host}`));
  return fetch(resource, init);
}

/**
 * The CLI's own entry (`runCli`, what `main.ts` calls) in this process, with the same result as
 * `runBuiltCli`: the exit code and everything written to stdout and stderr. The environment is built
 * from scratch the same way (PATH and HOME only, then `env`), so no real token reaches a command.
 * For the logic of a command; the process-level behaviour (shebang, signals, EPIPE) needs the binary.
 * GitHub writes are not paced (the emulators need no pacing, as in the demo) unless `io` says so.
 * Unless `io.fetch` is given, HTTP reaches loopback only: a command that would call a real host (a
 * default endpoint, say) fails as it would offline.
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
    fetch: loopbackFetch,
    ...options.io,
  });
  return { code, stdout, stderr };
}
