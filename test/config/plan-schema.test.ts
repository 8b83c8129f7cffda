import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../src/config/plan-schema.js';
import { ConfigSchema } from '../../src/config/schema.js';

const DAY = 24 * 3_600_000;

describe('config plan:', () => {
  it('defaults to no plan, withdrawn after 14 days', () => {
    expect(ConfigSchema.parse({}).plan).toEqual({ required: false, expires: 14 * DAY });
  });

  it('`plan: required` is short for { required: true }', () => {
    expect(PlanSchema.parse('required')).toEqual({ required: true, expires: 14 * DAY });
    expect(PlanSchema.parse({ required: true, expires: '30d' })).toEqual({
      required: true,
      expires: 30 * DAY,
    });
  });

  it('anything else is refused with what to write', () => {
    const bad = ConfigSchema.safeParse({ plan: 'yes' });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('expected \\"required\\" or an object');
    expect(ConfigSchema.safeParse({ plan: { required: true, typo: 1 } }).success).toBe(false);
  });
});
