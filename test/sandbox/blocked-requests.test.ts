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
    for (let i = 0; i < MAX_BLOCKED_DESTINATIONS; i++) tally.record('commands', `h${i}.test:443`);
    tally.record('commands', 'h0.test:443');
    for (let i = MAX_BLOCKED_DESTINATIONS; i < MAX_BLOCKED_DESTINATIONS + 10; i++)
      tally.record('commands', `h${i}.test:443`);
    const list = tally.list();
    expect(list).toHaveLength(MAX_BLOCKED_DESTINATIONS);
    expect(list[0]).toEqual({ role: 'commands', destination: 'h0.test:443', count: 2 });
    // What the list leaves out is counted: every refusal is in a listed count or in `others`.
    expect(list.reduce((sum, entry) => sum + entry.count, 0) + tally.others()).toBe(
      MAX_BLOCKED_DESTINATIONS + 11,
    );
  });

  it('cannot be blinded by a flood: the latest destination and any frequent one stay listed', () => {
    const tally = createBlockedTally();
    for (let i = 0; i < 1000; i++) {
      tally.record('commands', `noise-${i}.invalid:443`);
      // Refused 1 time in 20, more often than 1/MAX_BLOCKED_DESTINATIONS of all refusals.
      if (i % 20 === 0) tally.record('claude', 'frequent.attacker.invalid:443');
    }
    tally.record('setup', 'last.attacker.invalid:443');
    const list = tally.list();
    expect(list).toHaveLength(MAX_BLOCKED_DESTINATIONS);
    const destinations = list.map((entry) => entry.destination);
    expect(destinations).toContain('frequent.attacker.invalid:443');
    expect(destinations).toContain('last.attacker.invalid:443');
    expect(list.reduce((sum, entry) => sum + entry.count, 0) + tally.others()).toBe(1051);
    // Counts are never overstated: each is what was refused since the destination entered the tally.
    expect(list.find((entry) => entry.destination === 'last.attacker.invalid:443')?.count).toBe(1);
    expect(
      list.find((entry) => entry.destination === 'frequent.attacker.invalid:443')?.count,
    ).toBeLessThanOrEqual(50);
  });

  it('hands out copies: a caller cannot change the counts', () => {
    const tally = createBlockedTally();
    tally.record('claude', 'a.test:80');
    const first = tally.list();
    (first[0] as { count: number }).count = 99;
    expect(tally.list()[0]?.count).toBe(1);
  });
});
