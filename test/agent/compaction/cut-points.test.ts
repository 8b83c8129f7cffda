import { describe, expect, it } from 'vitest';
import { chooseKeepFrom, isSafeCut } from '../../../src/agent/compaction/cut-points.js';
import { estimateTokens } from '../../../src/agent/compaction/estimate-tokens.js';
import type { MessageParam } from '../../../src/model/types.js';
import { assistant, call, result, text, user } from './builders.js';

// 0 issue · 1 assistant(calls a) · 2 user(result a) · 3 assistant(answer) · 4 user(continue)
// · 5 assistant(calls b) · 6 user(result b)
const conversation: MessageParam[] = [
  user('Issue #12: title\n\nbody'),
  assistant([text('Looking.'), call('a', 'bash', { command: 'ls' })]),
  user([result('a', 'x'.repeat(400))]),
  assistant('First attempt done.'),
  user('continue'),
  assistant([call('b', 'bash', { command: 'npm test' })]),
  user([result('b', 'y'.repeat(200)), text('verify: 1 failed')]),
];

const suffix = (i: number) => estimateTokens(conversation.slice(i));

describe('isSafeCut', () => {
  it('refuses cuts between a call and its result, accepts the others', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => isSafeCut(conversation, i))).toEqual([
      true,
      true,
      false,
      true,
      true,
      true,
      false,
      true,
    ]);
  });

  it('refuses indexes that are not cuts, and the end after unanswered calls', () => {
    expect(isSafeCut(conversation, -1)).toBe(false);
    expect(isSafeCut(conversation, 8)).toBe(false);
    expect(isSafeCut(conversation, 1.5)).toBe(false);
    expect(isSafeCut(conversation.slice(0, 6), 6)).toBe(false);
    // Results without their call before them are still results that a cut must not open with.
    expect(isSafeCut([user('x'), user([result('a', 'stray')])], 1)).toBe(false);
  });
});

describe('chooseKeepFrom', () => {
  it('keeps the most recent turns that fit, whole', () => {
    expect(chooseKeepFrom(conversation, suffix(5))).toBe(5);
    // One token short of the last two messages: the cut before the result is unsafe, so nothing fits.
    expect(chooseKeepFrom(conversation, suffix(5) - 1)).toBe(7);
    expect(chooseKeepFrom(conversation, suffix(3))).toBe(3);
    // Message 2 would fit but its call would be dropped: the cut moves on to 3.
    expect(chooseKeepFrom(conversation, suffix(2))).toBe(3);
    expect(chooseKeepFrom(conversation, suffix(2) - 1)).toBe(3);
  });

  it('never cuts at 0, even when everything fits', () => {
    expect(chooseKeepFrom(conversation, 1_000_000)).toBe(1);
  });

  it('keeps nothing verbatim when no tail fits (also for a negative or NaN budget)', () => {
    expect(chooseKeepFrom(conversation, 0)).toBe(7);
    expect(chooseKeepFrom(conversation, -5)).toBe(7);
    expect(chooseKeepFrom(conversation, Number.NaN)).toBe(7);
  });

  it('keeps the shortest valid tail, over budget, when the conversation ends on unanswered calls', () => {
    const pending = conversation.slice(0, 6);
    expect(chooseKeepFrom(pending, 0)).toBe(5);
    expect(isSafeCut(pending, 5)).toBe(true);
    expect(chooseKeepFrom(pending, 1_000_000)).toBe(1);
  });

  it('answers messages.length when no safe cut exists (malformed) and for an empty conversation', () => {
    const malformed = [assistant([call('a', 'bash')]), assistant([call('b', 'bash')])];
    expect([1, 2].some((i) => isSafeCut(malformed, i))).toBe(false);
    expect(chooseKeepFrom(malformed, 1_000_000)).toBe(2);
    expect(chooseKeepFrom([], 100)).toBe(0);
  });
});
