import { setTimeout as delay } from 'node:timers/promises';

/**
 * Time as a dependency. Every wait in issueloop goes through `sleep`, which rejects with an
 * `AbortError` as soon as the signal aborts, so interrupts never wait out a backoff.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  },
};
