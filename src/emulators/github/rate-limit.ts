export type Resource = 'core' | 'graphql';

export interface RateSnapshot {
  limit: number;
  remaining: number;
  used: number;
  /** Epoch seconds. */
  reset: number;
}

/**
 * Primary rate limits in hourly windows that start on the hour, so a test controlling `now` knows
 * exactly when the budget comes back. One budget per resource for the whole emulator: the tests that
 * use several tokens do not need GitHub's per-user accounting.
 */
export interface RateLimiter {
  snapshot(resource: Resource): RateSnapshot;
  exhausted(resource: Resource): boolean;
  /** Counts one request; false when nothing was left to count. */
  charge(resource: Resource): boolean;
  headers(resource: Resource): Record<string, string>;
}

const HOUR_MS = 3_600_000;

export function createRateLimiter(limits: Record<Resource, number>, now: () => number): RateLimiter {
  const used: Record<Resource, number> = { core: 0, graphql: 0 };
  let windowStart = Number.NEGATIVE_INFINITY;

  function roll(): void {
    const start = Math.floor(now() / HOUR_MS) * HOUR_MS;
    if (start !== windowStart) {
      windowStart = start;
      used.core = 0;
      used.graphql = 0;
    }
  }

  function snapshot(resource: Resource): RateSnapshot {
    roll();
    const limit = limits[resource];
    const count = Math.min(used[resource], limit);
    return { limit, remaining: limit - count, used: count, reset: (windowStart + HOUR_MS) / 1000 };
  }

  return {
    snapshot,
    exhausted: (resource) => snapshot(resource).remaining === 0,
    charge(resource) {
      if (snapshot(resource).remaining === 0) return false;
      used[resource] += 1;
      return true;
    },
    headers(resource) {
      const s = snapshot(resource);
      return {
        'x-ratelimit-limit': String(s.limit),
        'x-ratelimit-remaining': String(s.remaining),
        'x-ratelimit-reset': String(s.reset),
        'x-ratelimit-used': String(s.used),
        'x-ratelimit-resource': resource,
      };
    },
  };
}
