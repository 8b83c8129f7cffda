import { describe, expect, it } from 'vitest';
import { type ClaimsFile, emptyClaimsFile, type Lease } from '../../src/claims/claims-schema.js';
import {
  blankRecord,
  claimIssue,
  importHistory,
  needsHumanNow,
  oneLine,
  releaseLease,
  renewLease,
  resetFailures,
} from '../../src/claims/claims-state.js';
import { StaleLeaseError } from '../../src/claims/errors.js';

// The rules as pure functions, for what the store contract (claim-store-contract.ts) cannot see:
// whether a transaction writes, and the edges of the text and history rules.
const NOW = Date.UTC(2026, 10, 21, 12);
const TTL = 60_000;
const ctx = { now: NOW, maxFailures: 3, redact: (text: string) => text.replaceAll('s3cret', '[REDACTED]') };

function leaseOn(issue: number, expiresIn: number, token = issue): Lease {
  return {
    issue,
    owner: `host:${issue}`,
    token,
    claimed_at: new Date(NOW - TTL).toISOString(),
    expires_at: new Date(NOW + expiresIn).toISOString(),
    ttl_ms: TTL,
  };
}

function stateWith(...leases: Lease[]): ClaimsFile {
  const state = emptyClaimsFile(100);
  for (const lease of leases) state.issues[lease.issue] = { ...blankRecord(lease.issue), lease, attempts: 1 };
  return state;
}

describe('claimIssue writes only what changed', () => {
  it('a refused claim writes the expired leases it cleared on the way', () => {
    const tx = claimIssue(stateWith(leaseOn(1, -1), leaseOn(2, TTL)), 2, 'b', TTL, ctx);
    expect(tx.result).toMatchObject({ ok: false, heldBy: { owner: 'host:2' } });
    expect(tx.next?.issues[1]?.lease).toBeNull();
    expect(tx.next?.issues[2]?.lease).toMatchObject({ owner: 'host:2' });
  });

  it('regression: a refused claim with nothing expired writes nothing (no file write per refusal)', () => {
    const tx = claimIssue(stateWith(leaseOn(1, TTL), leaseOn(2, TTL)), 2, 'b', TTL, ctx);
    expect(tx.result).toMatchObject({ ok: false, heldBy: { owner: 'host:2' } });
    expect(tx).not.toHaveProperty('next');
  });
});

describe('why a lease is stale', () => {
  it('regression: renewing or releasing a lease on an issue the store never saw is refused, not a TypeError', () => {
    const state = stateWith(leaseOn(1, TTL));
    expect(() => renewLease(state, leaseOn(9, TTL), ctx)).toThrow(StaleLeaseError);
    expect(() => renewLease(state, leaseOn(9, TTL), ctx)).toThrow(
      'lease on #9 with token 9 is no longer valid: the issue is not claimed',
    );
    expect(releaseLease(state, leaseOn(9, TTL), { outcome: 'resolved' }, ctx).result?.message).toMatch(
      /the issue is not claimed$/,
    );
  });

  it('names the lease that replaced it', () => {
    const state = stateWith(leaseOn(1, TTL, 7));
    expect(() => renewLease(state, leaseOn(1, TTL, 6), ctx)).toThrow(
      'lease on #1 with token 6 is no longer valid: another lease replaced it; #1 is now held by host:1 (token 7)',
    );
  });
});

describe('oneLine: what a failure reason keeps', () => {
  it('the first line with text, trimmed, skipping blank and whitespace-only lines', () => {
    expect(oneLine('\n   \n\t  npm test failed  \nat line 2')).toBe('npm test failed');
    expect(oneLine('  padded  ')).toBe('padded');
  });

  it('regression: a message of blank lines only is kept as empty text, not an invented one', () => {
    expect(oneLine('\n  \r\n')).toBe('');
    expect(oneLine('x'.repeat(301))).toHaveLength(300);
  });
});

describe('releaseLease of an interrupted attempt', () => {
  it('keeps an empty resume context when none was given', () => {
    const tx = releaseLease(stateWith(leaseOn(1, TTL)), leaseOn(1, TTL), { outcome: 'interrupted' }, ctx);
    expect(tx.next?.issues[1]).toMatchObject({
      lease: null,
      interrupted_at: new Date(NOW).toISOString(),
      partial_context: '',
    });
  });
});

describe('importHistory', () => {
  const history = (reasons: Array<{ at: string; message: string }>) => ({
    attempts: 4,
    failure_count: 0,
    last_outcome: 'error:timeout',
    failure_reasons: reasons.map((r) => ({ ...r, error_class: 'timeout' })),
  });

  it('dates the last failure from the last reason imported', () => {
    const reasons = ['2026-01-01', '2026-01-02', '2026-01-03'].map((day, i) => ({
      at: `${day}T00:00:00.000Z`,
      message: `failure ${i} s3cret`,
    }));
    const record = importHistory(emptyClaimsFile(), 4, history(reasons), ctx).next?.issues[4];
    expect(record).toMatchObject({
      last_failure_at: '2026-01-03T00:00:00.000Z',
      failure_count: 3,
      attempts: 4,
    });
    expect(record?.failure_reasons.map((r) => r.message)).toEqual([
      'failure 0 [REDACTED]',
      'failure 1 [REDACTED]',
      'failure 2 [REDACTED]',
    ]);
  });

  it('regression: a history without failures imports with no failure date instead of throwing', () => {
    const tx = importHistory(emptyClaimsFile(), 4, history([]), ctx);
    expect(tx.result).toBe(true);
    expect(tx.next?.issues[4]).toMatchObject({ last_failure_at: null, failure_count: 0, attempts: 4 });
  });
});

describe('resetFailures', () => {
  const withRecord = (failure_count: number, reasons: number) => {
    const state = emptyClaimsFile();
    state.issues[5] = {
      ...blankRecord(5),
      failure_count,
      failure_reasons: Array.from({ length: reasons }, () => ({ at: 'x', error_class: 'c', message: 'm' })),
    };
    return state;
  };

  it('clears a count without reasons, and reasons without a count (a hand-edited file)', () => {
    for (const state of [withRecord(2, 0), withRecord(0, 1)]) {
      const tx = resetFailures(state, 5);
      expect(tx.result).toBe(true);
      expect(tx.next?.issues[5]).toMatchObject({
        failure_count: 0,
        failure_reasons: [],
        last_failure_at: null,
      });
    }
  });

  it('writes nothing when there is nothing to clear', () => {
    expect(resetFailures(withRecord(0, 0), 5)).toEqual({ result: false });
    expect(resetFailures(emptyClaimsFile(), 5)).toEqual({ result: false });
  });
});

describe('needsHumanNow', () => {
  it("regression: a record stored with last_outcome 'refused_needs_human' by an earlier run still needs a human", () => {
    const refused = { ...blankRecord(3), last_outcome: 'refused_needs_human', failure_count: 1 };
    expect(needsHumanNow(refused, 3)).toBe(true);
    expect(needsHumanNow({ ...refused, failure_count: 0 }, 3)).toBe(false);
  });
});
