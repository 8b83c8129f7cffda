import { describe, expect, it } from 'vitest';
import { failureCount, failureText } from '../../src/claims/claims-state.js';
import { ClaimStoreUnreachableError, redisFailure } from '../../src/claims/errors.js';

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

describe('a Redis failure for people', () => {
  it('regression: names no ioredis option (the outage message read \'Refer to "maxRetriesPerRequest" option\')', () => {
    const ioredis = new Error(
      'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
    );
    const error = new ClaimStoreUnreachableError('redis://127.0.0.1:6390/0', 'list the claims', ioredis);
    expect(error.message).not.toMatch(/maxRetriesPerRequest|max retries per request/);
    expect(error.message).toContain(
      'redis://127.0.0.1:6390/0 unreachable while trying to list the claims: no answer',
    );
    expect(redisFailure(new Error('connect ECONNREFUSED 127.0.0.1:6390'))).toBe(
      'connect ECONNREFUSED 127.0.0.1:6390',
    );
  });
});
