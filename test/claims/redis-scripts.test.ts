import { describe, expect, it } from 'vitest';
import { MAX_LEASE_TTL_MS } from '../../src/claims/lease-limits.js';
import { NOW, REACH, TTL, useScriptRepos } from './redis-scripts-harness.js';

const { client, repo } = useScriptRepos();

describe('the Redis scripts: clock skew at the boundary of the maximum lease', () => {
  // A 24 h lease written by a host whose clock runs ahead by exactly the tolerance still holds;
  // one millisecond further it is damaged or forged and counts as expired. Widening the tolerance
  // (by a minute or by a day) lets the second lease hold an issue past every store's maximum.
  const atEdge = { ttl: MAX_LEASE_TTL_MS, expires: NOW + REACH };
  const beyond = { ttl: MAX_LEASE_TTL_MS, expires: NOW + REACH + 1 };

  it('claim: a lease just inside the skew tolerance holds its issue; just outside it is dropped and reported', async () => {
    const r = repo();
    await r.put(1, { ...atEdge, owner: 'ahead', token: 4 });
    const [held, holder, none] = await r.claim(1, 'b', TTL);
    expect([held, JSON.parse(holder), none]).toEqual([
      0,
      { ...atEdge, owner: 'ahead', token: 4, claimed: NOW },
      undefined,
    ]);
    await r.put(2, { ...beyond, owner: 'forger', token: 5 });
    const [granted, lease, dropped] = await r.claim(2, 'b', TTL);
    expect(granted).toBe(1);
    expect(JSON.parse(lease)).toMatchObject({ owner: 'b', expires: NOW + TTL });
    expect(JSON.parse(dropped ?? '')).toMatchObject({ owner: 'forger', token: 5, expires: NOW + REACH + 1 });
  });

  it('renew and release: a lease just outside the tolerance is refused as invalid, just inside it is honoured', async () => {
    const r = repo();
    await r.put(1, { ...beyond, token: 7, owner: 'a' });
    expect(await r.renew(1, 7, 'a')).toEqual([0, 'invalid', expect.stringContaining('"token":7')]);
    expect(await r.release(1, 7, 'a', { outcome: 'resolved' })).toEqual([0, 'invalid', expect.any(String)]);
    expect(await r.stored(1)).toMatchObject({ token: 7 });
    await r.put(2, { ...atEdge, token: 8, owner: 'a' });
    const [renewed, out] = await r.renew(2, 8, 'a');
    expect([renewed, JSON.parse(out)]).toEqual([
      1,
      { ...atEdge, token: 8, owner: 'a', claimed: NOW, expires: NOW + MAX_LEASE_TTL_MS },
    ]);
    expect(await r.release(2, 8, 'a', { outcome: 'resolved' })).toEqual([1]);
  });

  it('forceRelease and clear: only a lease inside the tolerance counts as live', async () => {
    const r = repo();
    await r.put(1, atEdge);
    await r.put(2, beyond);
    await client.sadd(r.k.issues, '1', '2');
    expect(await r.clear()).toEqual([1, 2]);
    await r.put(1, atEdge);
    await r.put(2, beyond);
    expect(JSON.parse(await r.forceRelease(1))).toMatchObject({ expires: NOW + REACH });
    expect(await r.forceRelease(2)).toBe('');
    expect([await r.stored(1), await r.stored(2)]).toEqual([null, null]);
  });

  it('a TTL of exactly 24 h is honoured, one millisecond more is invalid even when the lease ends soon', async () => {
    const r = repo();
    await r.put(1, { ttl: MAX_LEASE_TTL_MS, expires: NOW + TTL });
    expect((await r.claim(1, 'b', TTL))[0]).toBe(0);
    await r.put(2, { ttl: MAX_LEASE_TTL_MS + 1, expires: NOW + TTL });
    const [granted, , dropped] = await r.claim(2, 'b', TTL);
    expect(granted).toBe(1);
    expect(JSON.parse(dropped ?? '')).toMatchObject({ ttl: MAX_LEASE_TTL_MS + 1 });
    // Invalid is judged before expired: an over-long TTL is reported as such even once it lapsed.
    await r.put(3, { ttl: MAX_LEASE_TTL_MS + 1, expires: NOW - 1 });
    expect((await r.renew(3, 1, 'a'))[1]).toBe('invalid');
  });
});

describe('the Redis scripts: expiry exactly at the TTL', () => {
  it('a lease ending now is expired (the issue is free, nothing reported); one ending a millisecond later holds', async () => {
    const r = repo();
    await r.put(1, { expires: NOW + 1 });
    expect((await r.claim(1, 'b', TTL))[0]).toBe(0);
    expect(await r.renew(1, 1, 'a')).toEqual([1, expect.any(String)]);
    await r.put(2, { expires: NOW });
    expect(await r.renew(2, 1, 'a')).toEqual([0, 'expired', expect.any(String)]);
    expect(await r.forceRelease(2)).toBe('');
    await r.put(2, { expires: NOW });
    const [granted, lease, dropped] = await r.claim(2, 'b', TTL);
    expect([granted, JSON.parse(lease).owner, dropped]).toEqual([1, 'b', '']);
    // The new lease replaced the old key (SET NX on the still-present key would store nothing).
    expect(await r.stored(2)).toEqual(JSON.parse(lease));
  });

  it('a claim stores claimed = now, expires = now + ttl and the TTL, with Redis expiry (PX) from the TTL', async () => {
    const r = repo();
    const [, lease] = await r.claim(3, 'host:1', TTL, NOW + 5);
    expect(JSON.parse(lease)).toEqual({
      token: 1,
      owner: 'host:1',
      claimed: NOW + 5,
      expires: NOW + 5 + TTL,
      ttl: TTL,
    });
    expect(await r.stored(3)).toEqual(JSON.parse(lease));
    const pttl = await client.pttl(r.k.lease(3));
    expect(pttl).toBeGreaterThan(TTL - 10_000);
    expect(pttl).toBeLessThanOrEqual(TTL);
  });

  it('renew extends from now by the stored TTL, keeps token, owner and claim time, and resets Redis expiry', async () => {
    const r = repo();
    await r.put(1, { token: 9, ttl: 2 * TTL, expires: NOW + 10 });
    await client.pexpire(r.k.lease(1), 1_000);
    const [ok, out] = await r.renew(1, 9, 'a', NOW + 5);
    expect([ok, JSON.parse(out)]).toEqual([
      1,
      { token: 9, owner: 'a', claimed: NOW, expires: NOW + 5 + 2 * TTL, ttl: 2 * TTL },
    ]);
    expect(await client.pttl(r.k.lease(1))).toBeGreaterThan(1_000);
  });
});
