import { classifyError } from '../core/classify/classify-error.js';
import { ConfigError, CorruptStateError, StateAccessError, UsageError } from '../core/errors.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** 2 for bad usage, config or state; 130 for an interruption; 1 for any other failure. */
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
