import { describe, expect, it } from 'vitest';
import { createBlockedTally, MAX_BLOCKED_DESTINATIONS } from '../../src/sandbox/blocked-requests.js';

describe('the tally of refused destinations', () => {
  it('counts each role and destination apart, most-refused first', () => {
    const tally = createBlockedTally();
    tally.record('commands', 'example.com:443');
    tally.record('setup', 'example.com:443');
    tally.record('commands', '[::1]:6379');
    tally.record('commands', '[::1]:6379');
    expect(tally.list()).toEqual([
      { role: 'commands', destination: '[::1]:6379', count: 2 },
      { role: 'commands', destination: 'example.com:443', count: 1 },
      { role: 'setup', destination: 'example.com:443', count: 1 },
    ]);
  });

  it('keeps a bounded number of destinations, still counting the known ones', () => {
    const tally = createBlockedTally();
    for (let i = 0; i < MAX_BLOCKED_DESTINATIONS + 10; i++) tally.record('commands', `h${i}.test:443`);
    tally.record('commands', 'h0.test:443');
    const list = tally.list();
    expect(list).toHaveLength(MAX_BLOCKED_DESTINATIONS);
    expect(list[0]).toEqual({ role: 'commands', destination: 'h0.test:443', count: 2 });
  });

  it('hands out copies: a caller cannot change the counts', () => {
    const tally = createBlockedTally();
    tally.record('claude', 'a.test:80');
    const first = tally.list();
    (first[0] as { count: number }).count = 99;
    expect(tally.list()[0]?.count).toBe(1);
  });
});
