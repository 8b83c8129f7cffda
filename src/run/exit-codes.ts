import { classifyError } from '../core/classify/classify-error.js';
import { ConfigError, CorruptStateError, StateAccessError, UsageError } from '../core/errors.js';

/** The exit codes users' scripts and the GitHub Action rely on (design.md). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export function exitCodeFor(err: unknown): ExitCode {
  if (
    err instanceof ConfigError ||
    err instanceof UsageError ||
    err instanceof CorruptStateError ||
    err instanceof StateAccessError
  ) {
    return EXIT.usage;
  }
  if (classifyError(err).errorClass === 'aborted') return EXIT.interrupted;
  return EXIT.failure;
}
