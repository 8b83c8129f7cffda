import { describe, expect, it } from 'vitest';
import { fixedToken } from '../../src/github/token-source.js';

describe('fixedToken', () => {
  it('gives the same token every time and has nothing to renew it with', async () => {
    const source = fixedToken('ghp_example');
    expect(source.kind).toBe('fixed');
    expect(await source.token()).toBe('ghp_example');
    expect(await source.token()).toBe('ghp_example');
    expect(await source.renew('ghp_example')).toBeUndefined();
  });
});
