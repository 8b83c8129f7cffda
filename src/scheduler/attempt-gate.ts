/**
 * The worker slots and the money one multi-attempt claim shares among its attempts: an attempt starts
 * when one of the claim's slots is free and `attempts.max_usd` leaves something for it; it holds its
 * slot until it ends or hands its work to the judge, and its cap (`session.max_usd`, lowered to what
 * is left) until its cost is known. With nothing left and nothing running, the rest do not start.
 */
export interface AttemptGate {
  /** The session cap the attempt may spend, once it may start; undefined: it does not start. */
  start(): Promise<number | undefined>;
  /** Gives the slot back (the attempt ended, or waits for the judge). */
  freeSlot(): void;
  /** Replaces the attempt's held cap by what it spent. */
  settle(cap: number, spent: number): void;
  /** Spent by attempts whose cost is known. */
  readonly spent: number;
}

export function createAttemptGate(options: {
  slots: number;
  sessionMaxUsd: number;
  maxUsd?: number;
  signal: AbortSignal;
}): AttemptGate {
  let free = Math.max(1, options.slots);
  let held = 0;
  let holders = 0;
  let spent = 0;
  let wake: Array<() => void> = [];
  const changed = () => {
    const waiting = wake;
    wake = [];
    for (const resolve of waiting) resolve();
  };
  options.signal.addEventListener('abort', changed, { once: true });
  const next = () => new Promise<void>((resolve) => wake.push(resolve));

  return {
    get spent() {
      return spent;
    },
    async start() {
      for (;;) {
        if (options.signal.aborted) return undefined;
        const left = options.maxUsd === undefined ? Number.POSITIVE_INFINITY : options.maxUsd - spent - held;
        if (free > 0 && left > 0) {
          free -= 1;
          const cap = Math.min(options.sessionMaxUsd, left);
          held += cap;
          holders += 1;
          return cap;
        }
        // Out of money with nobody holding any: what is spent is final.
        if (left <= 0 && holders === 0) return undefined;
        await next();
      }
    },
    freeSlot() {
      free += 1;
      changed();
    },
    settle(cap, usd) {
      held -= cap;
      holders -= 1;
      spent += usd;
      changed();
    },
  };
}
