import { describe, expect, it } from 'vitest';
import { ConfigError, CorruptStateError, StateAccessError, UsageError } from '../../src/core/errors.js';
import { exitCodeFor } from '../../src/run/exit-code-for.js';
import { EXIT } from '../../src/run/exit-codes.js';

describe('exitCodeFor', () => {
  it('maps configuration and usage errors to 2', () => {
    expect(exitCodeFor(new ConfigError([{ path: 'workers', message: 'bad' }]))).toBe(EXIT.usage);
    expect(exitCodeFor(new UsageError('missing --repo'))).toBe(EXIT.usage);
    expect(exitCodeFor(new CorruptStateError('/s/claims.json', 'bad JSON', 'Fix it.'))).toBe(EXIT.usage);
    expect(exitCodeFor(new StateAccessError('/s', 'read_only', 'cannot write /s: read-only'))).toBe(
      EXIT.usage,
    );
  });

  it('maps every shape of abort to 130', () => {
    expect(exitCodeFor(new DOMException('aborted', 'AbortError'))).toBe(EXIT.interrupted);
    // The Anthropic SDK's own abort error is not named AbortError.
    expect(exitCodeFor(Object.assign(new Error('Request was aborted.'), { name: 'APIUserAbortError' }))).toBe(
      130,
    );
  });

  it('maps anything else to 1', () => {
    expect(exitCodeFor(new Error('boom'))).toBe(EXIT.failure);
    expect(exitCodeFor('a string')).toBe(EXIT.failure);
  });
});
