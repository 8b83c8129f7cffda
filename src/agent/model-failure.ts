import { type ClassifiedError, classifyError } from '../core/classify/classify-error.js';
import { RetryExhaustedError } from '../core/retry.js';
import { isModelError } from '../model/types.js';

/** The classified failure behind whatever a model call threw (the adapter's, or the retry's summary). */
export function modelFailureOf(err: unknown, now: number): ClassifiedError {
  if (err instanceof RetryExhaustedError) return err.last;
  if (isModelError(err)) return err.classified;
  return classifyError(err, { now });
}
