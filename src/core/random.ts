/** A source of uniform numbers in [0, 1): `Math.random` in production, seeded in tests and benchmarks. */
export type Random = () => number;

/**
 * mulberry32: a 32-bit PRNG with a full 2^32 period, enough for jitter and shuffles. Eight lines do
 * not justify a dependency; the point is reproducible jitter in tests, not cryptographic quality.
 */
export function createSeededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `Math.random` unless a seed is given. */
export function createRandom(seed?: number): Random {
  return seed === undefined ? Math.random : createSeededRandom(seed);
}
