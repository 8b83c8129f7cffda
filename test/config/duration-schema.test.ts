import { describe, expect, it } from 'vitest';
import { duration } from '../../src/config/duration-schema.js';

describe('duration()', () => {
  it('turns a unit string into milliseconds within its bounds', () => {
    expect(duration({ min: 0 }).parse('90s')).toBe(90_000);
    expect(duration({ min: 1_000, max: 60_000 }).parse('1m')).toBe(60_000);
  });

  it('refuses what is not a duration, out of range, or longer than a timer can wait, saying which', () => {
    const problem = (schema: ReturnType<typeof duration>, value: unknown) =>
      schema.safeParse(value).error?.issues[0]?.message;
    expect(problem(duration({ min: 0 }), 'soon')).toMatch(/expected .*got "soon"/);
    expect(problem(duration({ min: 1_000, max: 60_000 }), '2m')).toBe(
      'expected a duration between 1s and 1m, got "2m"',
    );
    expect(problem(duration({ min: 60_000 }), '30s')).toBe('expected a duration of at least 1m, got "30s"');
    expect(problem(duration({ min: 0 }), '30d')).toMatch(/at most .*2\^31-1 ms/);
  });
});
