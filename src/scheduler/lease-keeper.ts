import type { ClaimStore, Lease } from '../claims/claim-store.js';
import { StaleLeaseError } from '../claims/errors.js';
import type { Log } from '../core/logger.js';

/** A session stops this long before its lease would lapse unrenewed, so it never outlives the lease. */
export const LAPSE_MARGIN_MS = 5_000;

/**
 * Renews a lease every third of its TTL while its session runs. A renewal the store refuses (the
 * lease expired and someone else took the issue) aborts the session at once: two workers must never
 * push the same branch. A renewal that fails because the store cannot be reached (a Redis restart)
 * lets the session go on while the lease still holds, retrying each third of the TTL, and aborts it
 * only shortly before the lease would lapse. `onRenewed` hears of each renewal (the session's
 * spend reservation is renewed with it). Timers are real time: leases are about other
 * processes, not the injected clock.
 */
export function keepLease(
  claims: ClaimStore,
  lease: Lease,
  options: { log: Log; onLost: (why: string) => void; onRenewed?: (lease: Lease) => void },
): { current(): Lease; stop(): void } {
  let current = lease;
  let stopped = false;
  let renewedAt = Date.now();
  let lapse: NodeJS.Timeout | undefined;
  const every = Math.max(1_000, Math.floor(lease.ttl_ms / 3));

  function lose(why: string): void {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    if (lapse) clearTimeout(lapse);
    options.log.error({ issue: lease.issue }, why);
    options.onLost(why);
  }

  const timer = setInterval(() => {
    void claims.renew(current).then(
      (renewed) => {
        if (stopped) return;
        current = renewed;
        renewedAt = Date.now();
        options.onRenewed?.(renewed);
        if (lapse) clearTimeout(lapse);
        lapse = undefined;
      },
      (err: unknown) => {
        if (stopped) return;
        const message = (err as Error).message;
        if (err instanceof StaleLeaseError) {
          lose(`lease on #${lease.issue} lost: ${message}`);
          return;
        }
        const left = renewedAt + lease.ttl_ms - LAPSE_MARGIN_MS - Date.now();
        options.log.warn(
          { issue: lease.issue, leftMs: Math.max(left, 0) },
          `could not renew the lease on #${lease.issue} (${message}); the session goes on while the lease holds`,
        );
        lapse ??= setTimeout(
          () =>
            lose(
              `lease on #${lease.issue} would lapse unrenewed (the claim store is unreachable): stopping the session`,
            ),
          Math.max(left, 0),
        );
        lapse.unref();
      },
    );
  }, every);
  timer.unref();
  return {
    current: () => current,
    stop() {
      stopped = true;
      clearInterval(timer);
      if (lapse) clearTimeout(lapse);
    },
  };
}
