import { describe, expect, it } from 'vitest';
import {
  compactionLogLine,
  compactionPercent,
  shouldCompact,
} from '../../../src/agent/compaction/should-compact.js';

describe('shouldCompact', () => {
  it('compacts strictly past the threshold, not at it', () => {
    expect(shouldCompact(160_000, 200_000, 0.8)).toBe(false);
    expect(shouldCompact(160_001, 200_000, 0.8)).toBe(true);
    expect(shouldCompact(159_999, 200_000, 0.8)).toBe(false);
  });

  it('is exact at thresholds that float arithmetic gets wrong', () => {
    // In floating point 0.57 × 100 = 56.99999999999999 and 0.07 × 100 = 7.000000000000001.
    expect(shouldCompact(7, 100, 0.07)).toBe(false);
    expect(shouldCompact(8, 100, 0.07)).toBe(true);
    expect(shouldCompact(57, 100, 0.57)).toBe(false);
    expect(shouldCompact(58, 100, 0.57)).toBe(true);
  });

  it('never triggers on nonsensical measures', () => {
    expect(shouldCompact(10, 0, 0.8)).toBe(false);
    expect(shouldCompact(Number.NaN, 100, 0.8)).toBe(false);
    expect(shouldCompact(90, 100, Number.NaN)).toBe(false);
  });
});

describe('compactionPercent', () => {
  it('rounds down, and makes the log line', () => {
    expect(compactionPercent(164_999, 200_000)).toBe(82);
    expect(compactionPercent(0, 200_000)).toBe(0);
    expect(compactionPercent(10, 0)).toBe(0);
    expect(compactionLogLine(164_000, 200_000)).toBe(
      'compaction: context at 82%, starting fresh session with summary',
    );
  });
});
