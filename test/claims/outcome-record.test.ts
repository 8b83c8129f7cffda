import { describe, expect, it } from 'vitest';
import { type OutcomeRecord, pullsOf, spentUsd, zeroTouch } from '../../src/claims/outcome-record.js';

const base: OutcomeRecord = {
  issue: 7,
  title: 'Fix it',
  labels: ['issueloop'],
  first_claimed_at: '2026-11-01T00:00:00.000Z',
  sessions: [],
  touch: { commits: 0, change_requests: 0, threads: 0 },
};
const merged = { number: 9, url: 'u', state: 'merged' as const, opened_at: '2026-11-01T01:00:00.000Z' };

describe('zeroTouch', () => {
  it('is a merged PR no person committed to or asked changes of; threads alone do not count', () => {
    expect(zeroTouch({ ...base, pull: merged })).toBe(true);
    expect(zeroTouch({ ...base, pull: merged, touch: { commits: 0, change_requests: 0, threads: 2 } })).toBe(
      true,
    );
    expect(zeroTouch({ ...base, pull: merged, touch: { commits: 1, change_requests: 0, threads: 0 } })).toBe(
      false,
    );
    expect(zeroTouch({ ...base, pull: merged, touch: { commits: 0, change_requests: 1, threads: 0 } })).toBe(
      false,
    );
    expect(zeroTouch({ ...base, pull: { ...merged, state: 'open' } })).toBe(false);
    expect(zeroTouch(base)).toBe(false);
  });
});

describe('spentUsd', () => {
  it('adds every session of the issue', () => {
    const session = (usd: number) => ({
      kind: 'attempt' as const,
      at: '2026-11-01T00:00:00.000Z',
      run_id: 'r',
      engine: 'native' as const,
      models: ['m'],
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      usd,
      duration_ms: 0,
      outcome: 'resolved',
    });
    expect(spentUsd({ sessions: [session(0.25), session(0.5)] })).toBeCloseTo(0.75, 10);
    expect(spentUsd({ sessions: [] })).toBe(0);
  });
});

describe('pullsOf', () => {
  it('lists the earlier PRs oldest first, then the current one; none without a PR', () => {
    const closed = { ...merged, number: 5, state: 'closed' as const };
    expect(pullsOf({ ...base, pull: merged, earlier_pulls: [closed] })).toEqual([closed, merged]);
    expect(pullsOf({ ...base, pull: merged })).toEqual([merged]);
    expect(pullsOf(base)).toEqual([]);
  });
});
