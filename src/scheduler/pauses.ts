import { ClaimStoreUnreachableError } from '../claims/errors.js';
import { computeBackoff } from '../core/backoff.js';
import { classifyError } from '../core/classify/classify-error.js';
import { IssueloopError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { WorkContext } from './work-item.js';

/** Rounds in a row without the claim store before the run fails; backoff makes this about a minute. */
export const MAX_STORE_OUTAGES = 5;

/** A claim store that cannot be reached (a Redis server restarting, a network cut): worth waiting for. */
export function isStoreOutage(err: unknown): boolean {
  return err instanceof ClaimStoreUnreachableError;
}

/**
 * While the claim store is unreachable the run claims nothing: it backs off and tries again, and
 * fails (exit 1) after MAX_STORE_OUTAGES rounds in a row, naming the store and the error.
 */
export function createOutagePause(ctx: WorkContext) {
  let outages = 0;
  return {
    reset() {
      outages = 0;
    },
    async pause(err: unknown, log: Log): Promise<boolean> {
      outages += 1;
      const failure = classifyError(err, { now: ctx.deps.clock.now(), redact: ctx.redact });
      await ctx.ledger.append('claims_unreachable', { attempt: outages, message: failure.message });
      if (outages >= MAX_STORE_OUTAGES) {
        throw new IssueloopError(
          'claims_unreachable',
          `could not reach the claim store ${outages} times in a row: ${failure.message}`,
          { cause: err },
        );
      }
      const waitMs = computeBackoff(outages, {}, ctx.deps.random);
      log.warn({ waitMs }, `claim store unreachable (${failure.message}); no claims until it is back`);
      return pause(ctx, waitMs);
    },
  };
}

/** Sleeps on the injected clock; false when the run was interrupted meanwhile. */
export async function pause(ctx: WorkContext, ms: number): Promise<boolean> {
  try {
    await ctx.deps.clock.sleep(ms, ctx.signal);
    return true;
  } catch {
    return false;
  }
}
