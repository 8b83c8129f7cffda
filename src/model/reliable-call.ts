import type { ClassifiedError } from '../core/classify/classify-error.js';
import { classifyError } from '../core/classify/classify-error.js';
import type { ErrorClass } from '../core/classify/policy.js';
import type { Deps } from '../core/deps.js';
import { retry } from '../core/retry.js';
import type { FailoverChain, FailoverSwitch } from './failover.js';
import { type CallModel, isModelError, type ModelRequest } from './types.js';

export type ReliabilityEvent =
  | { type: 'retry'; model: string; attempt: number; errorClass: ErrorClass; message: string; waitMs: number }
  | { type: 'failover'; from: string; to: string; errorClass: ErrorClass; message: string };

export interface ReliableCallOptions {
  /** The raw adapter call; its failures arrive classified (`ModelError`). */
  call: CallModel;
  chain: FailoverChain;
  deps: Pick<Deps, 'clock' | 'random' | 'log'>;
  onEvent?: (event: ReliabilityEvent) => void;
  /** For `unknown` failures: one cheap diagnosis call decides whether another try is worth it. */
  diagnose?: (failure: ClassifiedError, err: unknown) => Promise<boolean>;
  /** Tries over all classes together (default 8). */
  maxAttempts?: number;
}

/**
 * The reliability rules of design.md around one model call: classes that are worth waiting for back
 * off (`retry-after` honoured, doubled for rate limits) through core's `retry`; rate_limit and
 * overloaded then continue on the next model of the chain, timeout after one retry on the same
 * model; the conversation carries over unchanged. Everything else is thrown at once, classified, for
 * the agent loop to decide (context_overflow → compact, auth → stop).
 */
export function createReliableCall(options: ReliableCallOptions): CallModel {
  const { chain, deps } = options;
  return async (request: ModelRequest, signal?: AbortSignal) => {
    // Consecutive timeouts per model within this call: the first is retried on the same model.
    const timeouts = new Map<string, number>();
    let lastModel = chain.current();
    const switchAfter = (failure: ClassifiedError): FailoverSwitch | undefined => {
      if (!failure.failover) return undefined;
      if (failure.errorClass === 'timeout') {
        const seen = (timeouts.get(lastModel) ?? 0) + 1;
        timeouts.set(lastModel, seen);
        if (seen < 2) return undefined;
      }
      return chain.fail(lastModel, failure.errorClass, failure.retryAfterMs);
    };
    const perChain = chain.models.length;
    return retry(
      async () => {
        lastModel = chain.current();
        const response = await options.call({ ...request, model: lastModel }, signal);
        chain.succeed(lastModel);
        return response;
      },
      {
        operation: 'model call',
        maxAttempts: options.maxAttempts ?? 8,
        // Each model of the chain gets the class's usual budget.
        attempts: { rate_limit: 3 * perChain, overloaded: 3 * perChain, timeout: 2 * perChain },
        classify: (err, now) => (isModelError(err) ? err.classified : classifyError(err, { now })),
        ...(options.diagnose ? { diagnose: options.diagnose } : {}),
        onRetry: (event) =>
          options.onEvent?.({
            type: 'retry',
            model: lastModel,
            attempt: event.attempt,
            errorClass: event.errorClass,
            message: event.message,
            waitMs: event.waitMs,
          }),
        beforeRetry: async (failure) => {
          const change = switchAfter(failure);
          if (!change) return;
          deps.log.warn(
            { from: change.from, to: change.to, errorClass: failure.errorClass },
            `failover: switching from ${change.from} to ${change.to}`,
          );
          options.onEvent?.({
            type: 'failover',
            ...change,
            errorClass: failure.errorClass,
            message: failure.message,
          });
        },
      },
      deps,
      signal,
    );
  };
}
