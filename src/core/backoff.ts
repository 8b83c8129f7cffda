import type { Random } from './random.js';

export const BACKOFF_CAP_MS = 60_000;
/** Jitter is uniform in [0, 3) seconds (seed 000, feature 3). */
export const BACKOFF_JITTER_MS = 3_000;
/**
 * A server's wait gets a little jitter on top, so workers told the same reset time do not return in
 * one burst, and never less than a second: a reset already past (clock skew) must not become a
 * tight loop that spends the whole retry budget at once.
 */
export const RETRY_AFTER_JITTER_MS = 1_000;
export const RETRY_AFTER_FLOOR_MS = 1_000;

export interface BackoffOptions {
  /** Rate limits wait twice as long (still capped). */
  rateLimited?: boolean;
  /** The server's own wait (`retry-after`, a rate-limit reset): used instead of the formula, up to the cap. */
  retryAfterMs?: number;
  capMs?: number;
}

/**
 * Milliseconds to wait before retry number `attempt` (1-based):
 * `min(2^attempt + random(0..3), 60)` seconds, doubled for rate limits; a server's `retry-after` is
 * honoured instead (at least 1 s, plus up to 1 s of jitter), up to the cap.
 */
export function computeBackoff(attempt: number, options: BackoffOptions, random: Random): number {
  const cap = options.capMs ?? BACKOFF_CAP_MS;
  if (
    options.retryAfterMs !== undefined &&
    Number.isFinite(options.retryAfterMs) &&
    options.retryAfterMs >= 0
  ) {
    const wait = Math.max(options.retryAfterMs, RETRY_AFTER_FLOOR_MS) + random() * RETRY_AFTER_JITTER_MS;
    return Math.min(Math.round(wait), cap);
  }
  const exponent = Math.max(0, Math.min(Math.floor(attempt), 30));
  const base = 2 ** exponent * 1000 + random() * BACKOFF_JITTER_MS;
  const delay = options.rateLimited ? base * 2 : base;
  return Math.min(Math.round(delay), cap);
}
