import { describe, expect, it } from 'vitest';
import { createLockStaleness } from '../../src/claims/lock-staleness.js';
import { FakeClock } from '../helpers/fake-clock.js';

const STALE_MS = 5_000;
const LOCK = '/state/claims.json.lock';

function judge() {
  const clock = new FakeClock();
  const staleness = createLockStaleness({ staleMs: STALE_MS, now: () => clock.now() });
  return { clock, isStale: (mtimeMs: number, ino = 1) => staleness.isStale(LOCK, { mtimeMs, ino }) };
}

describe('when a lock directory is stale', () => {
  it('a lock dated in the past: once its mtime is more than the stale bound old', () => {
    const { clock, isStale } = judge();
    expect(isStale(clock.now() - STALE_MS)).toBe(false);
    expect(isStale(clock.now() - STALE_MS - 1)).toBe(true);
  });

  it('regression: a lock directory dated in the future is reclaimed after the stale bound', () => {
    const { clock, isStale } = judge();
    const mtime = clock.now() + 3_000;
    expect(isStale(mtime)).toBe(false);
    clock.advance(STALE_MS - 1);
    expect(isStale(mtime)).toBe(false);
    clock.advance(1);
    // Seen unchanged for the stale bound; proper-lockfile's rule alone waits until now > mtime + stale.
    expect(isStale(mtime)).toBe(true);
  });

  it('a lock dated further ahead than the stale bound: at once', () => {
    const { clock, isStale } = judge();
    expect(isStale(clock.now() + STALE_MS)).toBe(false);
    expect(isStale(clock.now() + STALE_MS + 1)).toBe(true);
    expect(isStale(clock.now() + 365 * 86_400_000)).toBe(true);
  });

  it('never a future-dated lock its holder keeps refreshing (a clock a second ahead, 1 s mtimes)', () => {
    const { clock, isStale } = judge();
    for (let t = 0; t < 60_000; t += STALE_MS / 2) {
      // proper-lockfile rounds a refreshed mtime up to the next second on such filesystems.
      expect(isStale(Math.ceil((clock.now() + 1_000) / 1_000) * 1_000)).toBe(false);
      clock.advance(STALE_MS / 2);
    }
  });

  it('starts counting again for a new lock directory at the same path (another inode)', () => {
    const { clock, isStale } = judge();
    const mtime = clock.now() + 4_000;
    expect(isStale(mtime, 1)).toBe(false);
    clock.advance(STALE_MS - 1_000);
    expect(isStale(mtime, 2)).toBe(false);
    clock.advance(1_000);
    expect(isStale(mtime, 2)).toBe(false);
    clock.advance(STALE_MS);
    expect(isStale(mtime, 2)).toBe(true);
  });
});
