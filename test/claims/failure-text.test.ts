import { describe, expect, it } from 'vitest';
import { failureCount, failureText } from '../../src/claims/claims-state.js';

describe('a recorded failure for people', () => {
  it('regression: a message that already names its class is not prefixed twice (last failure: unknown: unknown: …)', () => {
    expect(failureText({ error_class: 'unknown', message: 'unknown: Invalid URL' })).toBe(
      'unknown: Invalid URL',
    );
    expect(failureText({ error_class: 'network', message: 'connect ECONNREFUSED 127.0.0.1:9' })).toBe(
      'network: connect ECONNREFUSED 127.0.0.1:9',
    );
  });

  it('regression: one failure is singular (#2 after 1 failures)', () => {
    expect(failureCount(1)).toBe('1 failure');
    expect(failureCount(3)).toBe('3 failures');
  });
});
