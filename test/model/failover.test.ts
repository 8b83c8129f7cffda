import { describe, expect, it } from 'vitest';
import { createFailoverChain } from '../../src/model/failover.js';

function chain(fallbacks = ['b', 'c']) {
  let now = 0;
  const c = createFailoverChain({ primary: 'a', fallbacks, now: () => now });
  return { c, advance: (ms: number) => (now += ms) };
}

describe('failover chain', () => {
  it('switches in order on rate_limit, overloaded and timeout only', () => {
    const { c } = chain();
    expect(c.fail('a', 'auth')).toBeUndefined();
    expect(c.fail('a', 'context_overflow')).toBeUndefined();
    expect(c.current()).toBe('a');
    expect(c.fail('a', 'rate_limit')).toEqual({ from: 'a', to: 'b' });
    expect(c.fail('b', 'overloaded')).toEqual({ from: 'b', to: 'c' });
    expect(c.current()).toBe('c');
  });

  it('does nothing without fallbacks', () => {
    const { c } = chain([]);
    expect(c.fail('a', 'rate_limit')).toBeUndefined();
    expect(c.current()).toBe('a');
  });

  it('a failed model cools down, growing with each failure in a row, and is tried again after', () => {
    const { c, advance } = chain(['b']);
    c.fail('a', 'rate_limit');
    expect(c.coolingUntil('a')).toBe(60_000);
    // b fails too while a is cooling: back to whichever is free first — a, since b's cooldown is newer.
    advance(10_000);
    expect(c.fail('b', 'rate_limit')).toEqual({ from: 'b', to: 'a' });
    advance(60_000);
    expect(c.fail('a', 'timeout')).toEqual({ from: 'a', to: 'b' });
    // a's second failure in a row: 120 s.
    expect(c.coolingUntil('a')).toBe(70_000 + 120_000);
    c.succeed('a');
    advance(200_000);
    c.fail('a', 'rate_limit');
    expect(c.coolingUntil('a')).toBe(270_000 + 60_000);
  });

  it('never cools a model for less than the server asked', () => {
    const { c } = chain();
    c.fail('a', 'rate_limit', 300_000);
    expect(c.coolingUntil('a')).toBe(300_000);
  });

  it('reset goes back to the primary at the start of an issue, unless the primary is still cooling down', () => {
    const { c, advance } = chain();
    c.fail('a', 'overloaded');
    expect(c.current()).toBe('b');
    c.reset();
    expect(c.current()).toBe('b');
    advance(61_000);
    c.reset();
    expect(c.current()).toBe('a');
  });
});
