import type { Clock } from '../core/clock.js';
import type { SessionReport } from '../session/session-report.js';

/**
 * The sessions a run has going, each holding the workers it uses (one; a best-of-N claim as many as
 * it runs side by side): `size` is the busy workers. A session's report is recorded the moment it
 * ends (its cost counts toward `run_max_usd` at once); the run waits on the pool only for a worker to
 * come free, never for the whole round.
 */
export interface WorkerPool {
  /** Busy workers: the sum of what each running claim holds. */
  readonly size: number;
  has(issue: number): boolean;
  /** A claim's session, holding `workers` workers (default 1) until it ends. */
  add(issue: number, session: Promise<SessionReport>, workers?: number): void;
  /**
   * Until a session ends, `pollMs` passes (when given) or the run is interrupted: `ended` when a
   * session ended before. A session that threw rethrows here.
   */
  next(pollMs?: number): Promise<'ended' | 'poll' | 'aborted'>;
  /** Until every session has ended (an interrupt reaches them through their own signal). */
  drain(): Promise<void>;
}

export function createWorkerPool(options: {
  clock: Pick<Clock, 'sleep'>;
  signal: AbortSignal;
  record: (report: SessionReport) => void;
}): WorkerPool {
  const running = new Map<number, Promise<void>>();
  /** The workers each running claim holds. */
  const held = new Map<number, number>();
  let ended = 0;
  let seen = 0;
  let failure: { err: unknown } | undefined;
  let wake: (() => void) | undefined;
  const rethrow = () => {
    if (failure) throw failure.err;
  };

  return {
    get size() {
      let busy = 0;
      for (const workers of held.values()) busy += workers;
      return busy;
    },
    has: (issue) => running.has(issue),
    add(issue, session, workers = 1) {
      held.set(issue, Math.max(1, Math.floor(workers)));
      const settled = session.then(
        (report) => options.record(report),
        (err: unknown) => {
          failure ??= { err };
        },
      );
      running.set(
        issue,
        settled.finally(() => {
          running.delete(issue);
          held.delete(issue);
          ended += 1;
          wake?.();
        }),
      );
    },
    async next(pollMs) {
      rethrow();
      if (ended === seen && !options.signal.aborted) {
        const stop = new AbortController();
        const onAbort = () => stop.abort();
        options.signal.addEventListener('abort', onAbort, { once: true });
        const sessionEnded = new Promise<void>((resolve) => {
          wake = resolve;
        });
        const polled =
          pollMs === undefined ? new Promise<void>(() => {}) : options.clock.sleep(pollMs, stop.signal);
        await Promise.race([
          sessionEnded,
          polled,
          new Promise((r) => stop.signal.addEventListener('abort', r)),
        ]).catch(() => undefined);
        wake = undefined;
        options.signal.removeEventListener('abort', onAbort);
        stop.abort();
      }
      rethrow();
      if (ended > seen) {
        seen = ended;
        return 'ended';
      }
      return options.signal.aborted ? 'aborted' : 'poll';
    },
    async drain() {
      await Promise.all(running.values());
      seen = ended;
      rethrow();
    },
  };
}
