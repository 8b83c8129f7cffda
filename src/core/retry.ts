import { BACKOFF_CAP_MS, computeBackoff } from './backoff.js';
import { type ClassifiedError, classifyError } from './classify/classify-error.js';
import type { ErrorClass, RecoveryAction } from './classify/policy.js';
import { CLASS_POLICY } from './classify/policy.js';
import type { Deps } from './deps.js';
import { IssueloopError } from './errors.js';
import { retryNoticeText } from './retry-notice.js';

/** Tries per class (the first try included) when the policy does not say otherwise. */
export const DEFAULT_ATTEMPTS_BY_ACTION: Readonly<Record<RecoveryAction, number>> = {
  retry_backoff: 5,
  retry_once: 2,
  failover: 3,
  diagnose: 2,
  compact: 1,
  fail_fast: 1,
  manual_review: 1,
};

export interface RetryEvent {
  operation: string;
  attempt: number;
  errorClass: ErrorClass;
  message: string;
  waitMs: number;
}

export interface RetryPolicy {
  /** Names the operation in logs and in the final error ("GET /repos/a/b/issues"). */
  operation: string;
  /** Tries allowed per class, the first included; classes not listed use their action's default. */
  attempts?: Partial<Record<ErrorClass, number>>;
  /** Tries over all classes together. */
  maxAttempts?: number;
  /** Longest single wait (default 60 s); a server asking for more waits this long, then tries again. */
  maxWaitMs?: number;
  /** Decides whether an `unknown` failure is worth another try (the model layer's cheap diagnosis). */
  diagnose?: (failure: ClassifiedError, err: unknown) => Promise<boolean>;
  /** Replaces the default `classifyError` (with the clock's now), e.g. to add configured secrets. */
  classify?: (err: unknown, now: number) => ClassifiedError;
  onRetry?: (event: RetryEvent) => void;
  /** Runs after the wait, before the next try: e.g. re-read the state a `conflict` was about. */
  beforeRetry?: (failure: ClassifiedError, attempt: number) => Promise<void>;
}

export interface AttemptRecord {
  attempt: number;
  errorClass: ErrorClass;
  message: string;
}

/** Every try failed (or the failure was not worth another): lists each attempt's class. */
export class RetryExhaustedError extends IssueloopError {
  readonly attempts: readonly AttemptRecord[];
  readonly last: ClassifiedError;

  constructor(
    operation: string,
    attempts: readonly AttemptRecord[],
    last: ClassifiedError,
    reason: string,
    cause: unknown,
  ) {
    const classes = attempts.map((a) => a.errorClass).join(', ');
    const noun = attempts.length === 1 ? 'attempt' : 'attempts';
    super(
      `retry_exhausted`,
      `${operation}: gave up after ${attempts.length} ${noun} (${classes}; ${reason}): ${last.message}`,
      {
        cause,
      },
    );
    this.attempts = attempts;
    this.last = last;
  }
}

/** Always an AbortError (entrypoints map it to exit 130), keeping a custom abort reason as its cause. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new DOMException('The operation was aborted', 'AbortError');
  if (reason !== undefined) Object.defineProperty(err, 'cause', { value: reason, enumerable: false });
  return err;
}

async function askDiagnosis(
  policy: RetryPolicy,
  failure: ClassifiedError,
  err: unknown,
): Promise<string | undefined> {
  if (!policy.diagnose) return 'no diagnosis available';
  try {
    return (await policy.diagnose(failure, err)) ? undefined : 'diagnosis says give up';
  } catch (diagnosisError) {
    const message = diagnosisError instanceof Error ? diagnosisError.message : String(diagnosisError);
    return `diagnosis failed: ${message}`;
  }
}

/**
 * Runs `fn` until it succeeds or the policy says stop. Each failure is classified once; the class's
 * action and budget decide whether to wait (with `computeBackoff`) and try again. Waits go through
 * the injected clock and end at once when `signal` aborts; an `aborted` failure is never retried.
 */
export async function retry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  deps: Pick<Deps, 'clock' | 'random' | 'log'>,
  signal?: AbortSignal,
): Promise<T> {
  const maxAttempts = Math.max(1, policy.maxAttempts ?? 6);
  const maxWaitMs = policy.maxWaitMs ?? BACKOFF_CAP_MS;
  const classify = policy.classify ?? ((err: unknown, now: number) => classifyError(err, { now }));
  const records: AttemptRecord[] = [];
  const perClass = new Map<ErrorClass, number>();

  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw abortError(signal);
    try {
      return await fn(attempt);
    } catch (err) {
      const failure = classify(err, deps.clock.now());
      if (failure.errorClass === 'aborted') throw err;
      records.push({ attempt, errorClass: failure.errorClass, message: failure.message });
      const seen = (perClass.get(failure.errorClass) ?? 0) + 1;
      perClass.set(failure.errorClass, seen);

      const action = CLASS_POLICY[failure.errorClass].action;
      const allowed = policy.attempts?.[failure.errorClass] ?? DEFAULT_ATTEMPTS_BY_ACTION[action];
      const giveUp = (reason: string) =>
        new RetryExhaustedError(policy.operation, records, failure, reason, err);
      if (seen >= allowed)
        throw giveUp(allowed === 1 ? `${action}` : `${failure.errorClass} budget of ${allowed} spent`);
      if (attempt >= maxAttempts) throw giveUp(`limit of ${maxAttempts} attempts`);
      if (action === 'diagnose') {
        const refusal = await askDiagnosis(policy, failure, err);
        if (refusal) throw giveUp(refusal);
      }

      const options = { rateLimited: failure.errorClass === 'rate_limit', capMs: maxWaitMs };
      const waitMs = computeBackoff(
        attempt,
        failure.retryAfterMs === undefined ? options : { ...options, retryAfterMs: failure.retryAfterMs },
        deps.random,
      );
      // The last try this class can have if it keeps failing: its budget, or the overall limit.
      const lastAttempt = Math.min(maxAttempts, attempt + allowed - seen);
      // Info, not debug: a person waiting on a run that cannot reach a service sees why it is quiet.
      deps.log.info(
        {
          operation: policy.operation,
          attempt,
          errorClass: failure.errorClass,
          status: failure.status,
          waitMs,
        },
        retryNoticeText({
          operation: policy.operation,
          message: failure.message,
          retry: attempt,
          retries: lastAttempt - 1,
          waitMs,
        }),
      );
      policy.onRetry?.({
        operation: policy.operation,
        attempt,
        errorClass: failure.errorClass,
        message: failure.message,
        waitMs,
      });
      try {
        await deps.clock.sleep(waitMs, signal);
      } catch (sleepError) {
        throw signal?.aborted ? abortError(signal) : sleepError;
      }
      await policy.beforeRetry?.(failure, attempt);
    }
  }
}
