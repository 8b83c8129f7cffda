import { describe, expect, it } from 'vitest';
import { sanitizeIssueText } from '../../src/github/sanitize.js';

/**
 * Linear time on hostile input, apart from sanitize.test.ts: under mutation testing's instrumented
 * code these sizes take longer than a test may, so scripts/mutate.mjs leaves this file out (a mutant
 * that makes a scan quadratic is caught here, in the ordinary suite).
 */
describe('sanitizeIssueText on hostile sizes', () => {
  it('finishes on hostile inputs of 100K–350K characters (no catastrophic backtracking)', () => {
    // Big enough that a scan quadratic in the length runs past the test's timeout, small enough
    // that the linear one costs a fraction of a second.
    const hostile = [
      '['.repeat(100_000),
      `![${'a'.repeat(200_000)}`,
      '!['.repeat(100_000),
      '<a '.repeat(100_000),
      '<a x="'.repeat(50_000),
      '](('.repeat(100_000),
      ']:'.repeat(150_000),
      '[a](b "'.repeat(50_000),
      '<!--'.repeat(100_000),
      '![a `'.repeat(60_000),
      `<a ${'title '.repeat(50_000)}`,
      '\u200B'.repeat(300_000),
    ];
    const kept = hostile.map((text) => sanitizeIssueText(text).text.length);
    expect(kept[0]).toBe(100_000);
    expect(kept[1]).toBe(200_002);
    expect(kept[8]).toBe(0);
    expect(kept[10]).toBe(3);
    expect(kept[11]).toBe(0);
  });
});
