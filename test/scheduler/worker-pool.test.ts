import { describe, expect, it } from 'vitest';
import { createWorkerPool } from '../../src/scheduler/worker-pool.js';
import type { SessionReport } from '../../src/session/session-report.js';
import { FakeClock } from '../helpers/fake-clock.js';

const report = (issue: number) => ({ issue, outcome: 'resolved', costUsd: 0.5 }) as SessionReport;

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function pool(controller = new AbortController(), clock = new FakeClock(undefined, false)) {
  const recorded: number[] = [];
  const p = createWorkerPool({ clock, signal: controller.signal, record: (r) => recorded.push(r.issue) });
  return { p, recorded, controller, clock };
}

describe('the worker pool', () => {
  it('counts a best-of-N claim as the workers it holds, until it ends', async () => {
    const { p } = pool();
    const wide = deferred<SessionReport>();
    p.add(1, wide.promise, 3);
    p.add(2, Promise.resolve(report(2)));
    expect(p.size).toBe(4);
    expect(await p.next()).toBe('ended');
    expect(p.size).toBe(3);
    wide.resolve(report(1));
    expect(await p.next()).toBe('ended');
    expect(p.size).toBe(0);
  });

  it('tells of a session that ended, recording its report at once', async () => {
    const { p, recorded } = pool();
    const one = deferred<SessionReport>();
    p.add(1, one.promise);
    expect(p.size).toBe(1);
    expect(p.has(1)).toBe(true);
    const next = p.next();
    one.resolve(report(1));
    expect(await next).toBe('ended');
    expect(recorded).toEqual([1]);
    expect(p.size).toBe(0);
  });

  it('a session that ended before the wait is told at once; a poll comes when no session ends', async () => {
    const { p, clock } = pool();
    p.add(1, Promise.resolve(report(1)));
    await new Promise((r) => setTimeout(r, 0));
    expect(await p.next(60_000)).toBe('ended');
    p.add(2, new Promise<SessionReport>(() => {}));
    const next = p.next(60_000);
    clock.advance(60_000);
    expect(await next).toBe('poll');
  });

  it('an interrupt ends the wait, also one that came before it', async () => {
    const { p, controller } = pool();
    p.add(1, new Promise<SessionReport>(() => {}));
    const next = p.next();
    controller.abort();
    expect(await next).toBe('aborted');
    expect(await p.next()).toBe('aborted');
  });

  it('a session that threw is rethrown by the next wait and by drain, after the others finished', async () => {
    const { p, recorded } = pool();
    const ok = deferred<SessionReport>();
    p.add(1, Promise.reject(new Error('boom')));
    p.add(2, ok.promise);
    await expect(p.next()).rejects.toThrow('boom');
    const drained = p.drain();
    ok.resolve(report(2));
    await expect(drained).rejects.toThrow('boom');
    expect(recorded).toEqual([2]);
  });
});
