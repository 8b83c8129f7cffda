import { ConfigError, UsageError } from '../core/errors.js';

/** The exit codes users' scripts and the GitHub Action rely on (design.md). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

function isAbort(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === 'AbortError' || (err as { code?: unknown }).code === 'ABORT_ERR')
  );
}

export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof ConfigError || err instanceof UsageError) return EXIT.usage;
  if (isAbort(err)) return EXIT.interrupted;
  return EXIT.failure;
}
