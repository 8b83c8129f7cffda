import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/config/duration.js';

describe('parseDuration', () => {
  const valid: Array<[string, number]> = [
    ['500ms', 500],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['2d', 172_800_000],
    ['1.5s', 1_500],
    [' 45m ', 2_700_000],
    ['1m30s250ms', 90_250],
  ];
  for (const [text, ms] of valid)
    it(`${JSON.stringify(text)} → ${ms} ms`, () => expect(parseDuration(text)).toBe(ms));

  const invalid = ['', '30', '30 minutes', 'm', '1x', '30mx', '-5s', 'fast', '1h-30m', '5 s s'];
  for (const text of invalid)
    it(`${JSON.stringify(text)} is not a duration`, () => expect(parseDuration(text)).toBeUndefined());
});

describe('formatDuration', () => {
  it('prints the largest whole unit', () => {
    expect([
      formatDuration(3_600_000),
      formatDuration(60_000),
      formatDuration(1_000),
      formatDuration(1_500),
    ]).toEqual(['1h', '1m', '1s', '1500ms']);
  });
});
