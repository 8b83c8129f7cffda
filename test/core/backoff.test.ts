import { describe, expect, it } from 'vitest';
import { BACKOFF_CAP_MS, computeBackoff } from '../../src/core/backoff.js';
import { createSeededRandom } from '../../src/core/random.js';

describe('computeBackoff', () => {
  it('stays within [2^attempt, 2^attempt + 3) seconds for attempts 1–5', () => {
    const random = createSeededRandom(7);
    for (let attempt = 1; attempt <= 5; attempt++) {
      for (let i = 0; i < 200; i++) {
        const ms = computeBackoff(attempt, {}, random);
        expect(ms).toBeGreaterThanOrEqual(2 ** attempt * 1000);
        expect(ms).toBeLessThan(2 ** attempt * 1000 + 3000);
      }
    }
  });

  it('uses the whole jitter range (not a constant)', () => {
    const random = createSeededRandom(1);
    const samples = Array.from({ length: 500 }, () => computeBackoff(1, {}, random) - 2000);
    expect(Math.min(...samples)).toBeLessThan(300);
    expect(Math.max(...samples)).toBeGreaterThan(2700);
  });

  it('matches the formula exactly for a fixed random', () => {
    expect(computeBackoff(3, {}, () => 0.5)).toBe(8000 + 1500);
    expect(computeBackoff(1, {}, () => 0)).toBe(2000);
  });

  it('doubles for rate limits', () => {
    expect(computeBackoff(2, { rateLimited: true }, () => 0.5)).toBe(2 * (4000 + 1500));
    expect(computeBackoff(2, { rateLimited: false }, () => 0.5)).toBe(4000 + 1500);
  });

  it('caps at 60 s, also when doubled and for huge attempts', () => {
    expect(computeBackoff(6, {}, () => 0.99)).toBe(BACKOFF_CAP_MS);
    expect(computeBackoff(5, { rateLimited: true }, () => 0)).toBe(BACKOFF_CAP_MS);
    expect(computeBackoff(10_000, {}, () => 0)).toBe(BACKOFF_CAP_MS);
  });

  it('honours retry-after instead of the formula, plus up to 1 s of jitter, up to the cap', () => {
    expect(computeBackoff(4, { retryAfterMs: 1200 }, () => 0)).toBe(1200);
    expect(computeBackoff(4, { retryAfterMs: 1200 }, () => 0.5)).toBe(1700);
    expect(computeBackoff(1, { retryAfterMs: 30_000, rateLimited: true }, () => 0)).toBe(30_000);
    expect(computeBackoff(1, { retryAfterMs: 3_600_000, rateLimited: true }, () => 0)).toBe(BACKOFF_CAP_MS);
  });

  it('regression: a retry-after of 0 (a reset already past, clock skew) still waits at least 1 s', () => {
    expect(computeBackoff(1, { retryAfterMs: 0 }, () => 0)).toBe(1000);
    const random = createSeededRandom(5);
    for (let i = 0; i < 100; i++)
      expect(computeBackoff(1, { retryAfterMs: 0 }, random)).toBeGreaterThanOrEqual(1000);
  });

  it('ignores a nonsensical retry-after', () => {
    expect(computeBackoff(1, { retryAfterMs: -5 }, () => 0)).toBe(2000);
    expect(computeBackoff(1, { retryAfterMs: Number.NaN }, () => 0)).toBe(2000);
  });

  it('respects a smaller cap', () => {
    expect(computeBackoff(5, { capMs: 10_000 }, () => 0)).toBe(10_000);
  });
});

describe('createSeededRandom', () => {
  it('is reproducible per seed and stays in [0, 1)', () => {
    const a = createSeededRandom(42);
    const b = createSeededRandom(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(createSeededRandom(43)()).not.toBe(createSeededRandom(42)());
  });
});
