import { describe, expect, it } from 'vitest';
import { AttemptsSchema, MAX_ATTEMPTS } from '../../src/config/attempts-schema.js';
import { ConfigSchema } from '../../src/config/schema.js';

describe('the attempts: section', () => {
  it('defaults to three attempts, no cap of its own, the diagnosis model as judge', () => {
    expect(ConfigSchema.parse({}).attempts).toEqual({ n: 3 });
    expect(AttemptsSchema.parse({ n: 1, max_usd: 4, judge_model: 'claude-haiku-5-5' })).toEqual({
      n: 1,
      max_usd: 4,
      judge_model: 'claude-haiku-5-5',
    });
  });

  it('refuses 0 attempts, more than the most, a negative cap and unknown keys, saying why', () => {
    const zero = AttemptsSchema.safeParse({ n: 0 });
    expect(zero.success).toBe(false);
    expect(zero.error?.issues[0]?.message).toContain('1 turns best-of-N off');
    expect(AttemptsSchema.safeParse({ n: MAX_ATTEMPTS }).success).toBe(true);
    expect(AttemptsSchema.safeParse({ n: MAX_ATTEMPTS + 1 }).success).toBe(false);
    expect(AttemptsSchema.safeParse({ max_usd: -1 }).error?.issues[0]?.message).toContain('positive amount');
    expect(ConfigSchema.safeParse({ attempts: { count: 3 } }).success).toBe(false);
  });
});
