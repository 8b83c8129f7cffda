import type { ClaimStore, Lease } from '../claims/claim-store.js';
import type { Log } from '../core/logger.js';

/**
 * Renews a lease every third of its TTL while its session runs. A renewal the store refuses (the
 * lease expired and someone else took the issue) aborts the session: two workers must never push
 * the same branch. Timers are real time: leases are about other processes, not the injected clock.
 */
export function keepLease(
  claims: ClaimStore,
  lease: Lease,
  options: { log: Log; onLost: (why: string) => void },
): { current(): Lease; stop(): void } {
  let current = lease;
  let stopped = false;
  const every = Math.max(1_000, Math.floor(lease.ttl_ms / 3));
  const timer = setInterval(() => {
    void claims.renew(current).then(
      (renewed) => {
        if (!stopped) current = renewed;
      },
      (err: unknown) => {
        if (stopped) return;
        stopped = true;
        clearInterval(timer);
        const why = `lease on #${lease.issue} lost: ${(err as Error).message}`;
        options.log.error({ issue: lease.issue }, why);
        options.onLost(why);
      },
    );
  }, every);
  timer.unref();
  return {
    current: () => current,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
