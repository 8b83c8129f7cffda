import { computeBackoff } from '../core/backoff.js';
import { classifyError } from '../core/classify/classify-error.js';
import { IssueloopError, UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { Run, RunStop } from './run-record.js';
import type { WorkItem } from './work-source.js';

/** A run that cannot read its backlog this many times in a row fails (exit 1) rather than spin. */
export const MAX_FETCH_FAILURES = 3;

/**
 * The backlog, or how long to wait before the same round tries again. A backlog the user broke (a task
 * file edited into bad syntax) is not a fetch to retry: it throws (exit 2), as does the third failed
 * fetch in a row (exit 1).
 */
export async function listBacklog<T extends WorkItem>(
  run: Run<T>,
  round: number,
  log: Log,
): Promise<{ backlog: readonly T[] } | { waitMs: number } | { stop: RunStop }> {
  const { ctx, options } = run;
  try {
    const backlog = await ctx.source.list();
    run.fetchFailures = 0;
    return {
      backlog: options.only === undefined ? backlog : backlog.filter((item) => item.number === options.only),
    };
  } catch (err) {
    if (ctx.signal.aborted) return { stop: 'interrupted' };
    if (err instanceof UsageError) throw err;
    run.fetchFailures += 1;
    const failure = classifyError(err, { now: ctx.deps.clock.now(), redact: ctx.redact });
    await ctx.ledger.append('backlog_failed', {
      round,
      errorClass: failure.errorClass,
      message: failure.message,
    });
    if (run.fetchFailures >= MAX_FETCH_FAILURES) {
      throw new IssueloopError(
        'backlog_unreadable',
        `could not read the backlog ${run.fetchFailures} times in a row: ${failure.message}${failure.hint ? `: ${failure.hint}` : ''}`,
        { cause: err },
      );
    }
    // Not an empty round: it says nothing about the backlog.
    const waitMs = computeBackoff(
      run.fetchFailures,
      {
        rateLimited: failure.errorClass === 'rate_limit',
        ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
      },
      ctx.deps.random,
    );
    log.warn(
      { errorClass: failure.errorClass, waitMs },
      `backlog fetch failed (${failure.message}); retrying`,
    );
    return { waitMs };
  }
}
