import { describe, expect, it } from 'vitest';
import { NOW, TTL, useScriptRepos } from './redis-scripts-harness.js';

const { client, repo } = useScriptRepos();
const failure = (message: string) => ({ outcome: 'error:test', failure: { class: 'test', message } });

describe('the Redis scripts: fencing tokens and who a lease belongs to', () => {
  it('hands out tokens in order across issues, and a claim on a freed issue gets a larger one', async () => {
    const r = repo();
    const token = async (issue: number, now = NOW) =>
      JSON.parse((await r.claim(issue, 'a', TTL, now))[1]).token;
    expect([await token(1), await token(2), await token(3)]).toEqual([1, 2, 3]);
    // #1 expired: the next holder's token is above every earlier one, not a reused or reset one.
    expect(await token(1, NOW + TTL)).toBe(4);
    expect(await client.get(r.k.nextToken)).toBe('4');
  });

  it('a refused claim takes no token and counts no attempt', async () => {
    const r = repo();
    await r.claim(1, 'a', TTL);
    const [held, holder] = await r.claim(1, 'b', TTL);
    expect([held, JSON.parse(holder).owner]).toEqual([0, 'a']);
    expect(await client.get(r.k.nextToken)).toBe('1');
    expect(await r.hash(1)).toEqual({ attempts: '1' });
    expect(await client.smembers(r.k.issues)).toEqual(['1']);
  });

  it('counts an attempt per grant on the issue, not per issue known', async () => {
    const r = repo();
    await r.claim(5, 'a', TTL);
    await r.claim(5, 'b', TTL, NOW + TTL);
    await r.claim(6, 'a', TTL);
    expect([(await r.hash(5)).attempts, (await r.hash(6)).attempts]).toEqual(['2', '1']);
  });

  it('a renewal or release with another token or another owner is refused as replaced, naming the holder', async () => {
    const r = repo();
    await r.put(1, { token: 12, owner: 'a' });
    // The token is compared as text: 1 is not 12, though it is a prefix of it.
    expect(await r.renew(1, 1, 'a')).toEqual([0, 'replaced', expect.stringContaining('"token":12')]);
    expect(await r.renew(1, 12, 'b')).toEqual([0, 'replaced', expect.stringContaining('"owner":"a"')]);
    expect(await r.release(1, 12, 'b', { outcome: 'resolved' })).toEqual([0, 'replaced', expect.any(String)]);
    expect(await r.stored(1)).toMatchObject({ token: 12, owner: 'a', expires: NOW + TTL });
    // Another owner's lease is "replaced" even when it is also expired or invalid: ownership first.
    await r.put(2, { token: 3, expires: NOW - 1 });
    expect((await r.renew(2, 4, 'a'))[1]).toBe('replaced');
  });

  it('a renewal or release of an issue with no lease is refused as none, with no stored lease', async () => {
    const r = repo();
    expect(await r.renew(9, 1, 'a')).toEqual([0, 'none', '']);
    expect(await r.release(9, 1, 'a', { outcome: 'resolved' })).toEqual([0, 'none', '']);
    expect(await client.exists(r.k.record(9), r.k.issues)).toBe(0);
  });
});

describe('the Redis scripts: what a release and a failure record', () => {
  it('release ends the lease and records the outcome; an interruption keeps its context and the old hint', async () => {
    const r = repo();
    await r.put(1, { token: 2 });
    await client.hset(r.k.record(1), 'hint', 'look at greet.js');
    expect(
      await r.release(1, 2, 'a', { outcome: 'interrupted', interrupted: true, partial: 'half' }),
    ).toEqual([1]);
    expect(await r.stored(1)).toBeNull();
    expect(await r.hash(1)).toEqual({
      last_outcome: 'interrupted',
      interrupted_at: new Date(NOW).toISOString(),
      partial_context: 'half',
      hint: 'look at greet.js',
    });
    await r.put(1, { token: 3 });
    await r.release(1, 3, 'a', { outcome: 'resolved', interrupted: false, hint: 'new hint' });
    expect(await r.hash(1)).toEqual({ last_outcome: 'resolved', hint: 'new hint' });
    await r.put(1, { token: 4 });
    await r.release(1, 4, 'a', { outcome: 'no_changes', interrupted: false });
    expect(await r.hash(1)).toEqual({ last_outcome: 'no_changes' });
  });

  it('a release that ends in a failure records the outcome and counts the failure', async () => {
    const r = repo();
    await r.put(1, { token: 6 });
    expect(await r.release(1, 6, 'a', { ...failure('npm test failed'), interrupted: false })).toEqual([1]);
    expect(await r.hash(1)).toMatchObject({ last_outcome: 'error:test', failure_count: '1' });
    expect(JSON.parse((await r.hash(1)).failure_reasons ?? '')).toMatchObject([
      { message: 'npm test failed' },
    ]);
  });

  it('a stale release still counts its failure (an always-overrunning issue reaches max_failures), nothing else', async () => {
    const r = repo();
    await r.put(1, { token: 5, expires: NOW - 1 });
    expect(await r.release(1, 5, 'a', failure('took too long'))).toEqual([0, 'expired', expect.any(String)]);
    const hash = await r.hash(1);
    expect(hash).toMatchObject({ failure_count: '1', last_failure_at: new Date(NOW).toISOString() });
    expect(hash.last_outcome).toBeUndefined();
    expect(JSON.parse(hash.failure_reasons ?? '')).toEqual([
      { at: new Date(NOW).toISOString(), error_class: 'test', message: 'took too long' },
    ]);
    expect(await client.smembers(r.k.issues)).toEqual(['1']);
    expect(await r.stored(1)).toMatchObject({ token: 5 });
    // Without a failure a stale release writes nothing at all.
    await r.release(2, 5, 'a', { outcome: 'resolved' });
    expect(await client.exists(r.k.record(2))).toBe(0);
  });

  it('keeps the last 10 failure reasons but counts every failure', async () => {
    const r = repo();
    for (let i = 1; i <= 12; i++) {
      await client.issueloopRecordFailure(r.k.record(3), r.k.issues, 3, `t${i}`, 'test', `failure ${i}`);
    }
    const hash = await r.hash(3);
    const reasons = JSON.parse(hash.failure_reasons ?? '') as Array<{ message: string }>;
    expect(hash.failure_count).toBe('12');
    expect(hash.last_failure_at).toBe('t12');
    expect(reasons.map((x) => x.message)).toEqual(Array.from({ length: 10 }, (_, i) => `failure ${i + 3}`));
    expect(await client.smembers(r.k.issues)).toEqual(['3']);
  });

  it('resetFailures clears the count and the reasons, and says whether there was anything to clear', async () => {
    const r = repo();
    const reset = (issue: number) => client.issueloopResetFailures(r.k.record(issue));
    expect(await reset(1)).toBe(0);
    await client.hset(r.k.record(1), 'failure_count', '0', 'failure_reasons', '[]', 'attempts', '2');
    expect(await reset(1)).toBe(0);
    // Reasons without a count (an imported history) are still something to clear.
    await client.hset(r.k.record(2), 'failure_count', '0', 'failure_reasons', '[{"message":"x"}]');
    expect(await reset(2)).toBe(1);
    await client.hset(r.k.record(3), 'failure_count', '2', 'last_failure_at', 't', 'attempts', '2');
    expect(await reset(3)).toBe(1);
    expect(await r.hash(3)).toEqual({ failure_count: '0', failure_reasons: '[]', attempts: '2' });
  });

  it('importHistory takes a history only for an issue the store does not know, even one with no record hash', async () => {
    const r = repo();
    const take = (issue: number, fields: object) =>
      client.issueloopImportHistory(r.k.record(issue), r.k.issues, issue, JSON.stringify(fields));
    expect(await take(4, { attempts: '3', last_outcome: 'resolved' })).toBe(1);
    expect(await r.hash(4)).toEqual({ attempts: '3', last_outcome: 'resolved' });
    expect(await take(4, { attempts: '9' })).toBe(0);
    expect((await r.hash(4)).attempts).toBe('3');
    await client.sadd(r.k.issues, '5');
    expect(await take(5, { attempts: '9' })).toBe(0);
    expect(await client.exists(r.k.record(5))).toBe(0);
  });

  it('clear removes every lease and record and the issue set, keeps the token counter, and counts live leases', async () => {
    const r = repo();
    await r.claim(1, 'a', TTL);
    await r.claim(2, 'a', TTL);
    await r.put(3, { expires: NOW });
    await client.sadd(r.k.issues, '3');
    expect(await r.clear()).toEqual([2, 3]);
    const left = await client.exists(r.k.lease(1), r.k.lease(2), r.k.lease(3), r.k.record(1), r.k.issues);
    expect(left).toBe(0);
    expect(await client.get(r.k.nextToken)).toBe('2');
  });
});
