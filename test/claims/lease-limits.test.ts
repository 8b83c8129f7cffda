import { describe, expect, it } from 'vitest';
import {
  checkTtl,
  createLeaseWarnings,
  LEASE_CLOCK_SKEW_MS,
  leaseProblem,
  MAX_LEASE_TTL_MS,
} from '../../src/claims/lease-limits.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const lease = (expiresIn: number, ttl = 30 * 60_000) => ({
  issue: 7,
  owner: 'a',
  token: 3,
  claimed_at: new Date(NOW).toISOString(),
  expires_at: new Date(NOW + expiresIn).toISOString(),
  ttl_ms: ttl,
});

describe('the maximum lease TTL', () => {
  it('is the upper bound of claims.ttl in the configuration', () => {
    expect(ConfigSchema.parse({ claims: { ttl: '24h' } }).claims.ttl).toBe(MAX_LEASE_TTL_MS);
    expect(ConfigSchema.safeParse({ claims: { ttl: '24h1m' } }).success).toBe(false);
  });

  it('is the largest TTL a claim may ask for', () => {
    expect(() => checkTtl(MAX_LEASE_TTL_MS)).not.toThrow();
    expect(() => checkTtl(MAX_LEASE_TTL_MS + 1)).toThrow(/between 1 ms and 24 h/);
  });

  it('bounds how far ahead a stored lease may end, with room for clock skew between hosts', () => {
    const limit = MAX_LEASE_TTL_MS + LEASE_CLOCK_SKEW_MS;
    expect(leaseProblem(lease(limit), NOW)).toBeUndefined();
    expect(leaseProblem(lease(limit + 1), NOW)).toMatch(/further ahead than the 24 h maximum/);
    expect(leaseProblem(lease(60_000, MAX_LEASE_TTL_MS), NOW)).toBeUndefined();
    expect(leaseProblem(lease(60_000, MAX_LEASE_TTL_MS + 1), NOW)).toMatch(/TTL of 86400001 ms, above/);
  });

  it('reports each rejected lease once, and none without a problem', () => {
    const log = createMemoryLog();
    const warn = createLeaseWarnings(log);
    // A sound lease of its own token: a mutant that reported it would show token 2.
    warn({ ...lease(60_000), token: 2 }, NOW);
    warn(lease(400 * MAX_LEASE_TTL_MS), NOW);
    warn(lease(400 * MAX_LEASE_TTL_MS), NOW + 1000);
    warn({ ...lease(400 * MAX_LEASE_TTL_MS), token: 4 }, NOW);
    expect(log.entries.map((e) => [e.level, e.fields.token])).toEqual([
      ['warn', 3],
      ['warn', 4],
    ]);
  });

  it('regression: the skew tolerance is 10 minutes, not widened (a lease 24 h + 10 min + 1 ms ahead is refused)', () => {
    expect(LEASE_CLOCK_SKEW_MS).toBe(600_000);
    expect(leaseProblem(lease(86_400_000 + 600_000), NOW)).toBeUndefined();
    expect(leaseProblem(lease(86_400_000 + 600_001), NOW)).toBeDefined();
  });

  it('names the problem, the lease and the verdict in the warning', () => {
    const log = createMemoryLog();
    createLeaseWarnings(log)(lease(60_000, MAX_LEASE_TTL_MS + 1), NOW);
    expect(log.entries.map((e) => e.msg)).toEqual([
      'claims: the lease on #7 (token 3, a) has a TTL of 86400001 ms, above the 24 h maximum: ' +
        'the record is damaged or forged, so it is treated as expired',
    ]);
  });

  it('regression: a store without a log does not crash on a rejected lease', () => {
    const warn = createLeaseWarnings(undefined);
    expect(() => warn(lease(400 * MAX_LEASE_TTL_MS), NOW)).not.toThrow();
    expect(leaseProblem(lease(400 * MAX_LEASE_TTL_MS), NOW)).toMatch(/further ahead/);
  });
});

describe('checkTtl', () => {
  it.each([[0], [-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 53]])(
    'regression: refuses a TTL of %s ms as an invalid argument (a zero, negative or fractional TTL is no lease)',
    (ttl) => {
      let thrown: unknown;
      try {
        checkTtl(ttl);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toMatchObject({
        code: 'invalid_argument',
        message: `ttl must be between 1 ms and 24 h (the maximum lease TTL, as claims.ttl), got ${ttl} ms`,
      });
    },
  );

  it('accepts 1 ms and names what it checks', () => {
    expect(() => checkTtl(1)).not.toThrow();
    expect(() => checkTtl(0, 'the lease ttl_ms')).toThrow(/^the lease ttl_ms must be between/);
  });
});
