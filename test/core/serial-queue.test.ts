import { describe, expect, it } from 'vitest';
import { createSerialQueue } from '../../src/core/serial-queue.js';

describe('createSerialQueue', () => {
  it('runs tasks one at a time, in call order, even when earlier ones are slower', async () => {
    const serial = createSerialQueue();
    const events: string[] = [];
    const task = (name: string, ms: number) => () =>
      new Promise<string>((resolve) => {
        events.push(`start ${name}`);
        setTimeout(() => {
          events.push(`end ${name}`);
          resolve(name);
        }, ms);
      });
    const results = await Promise.all([serial(task('a', 20)), serial(task('b', 1)), serial(task('c', 5))]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('rejects only the failing caller and goes on with the next task', async () => {
    const serial = createSerialQueue();
    const failed = serial(async () => {
      throw new Error('boom');
    });
    const next = serial(async () => 'after');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('after');
  });
});
