import { describe, expect, it } from 'vitest';
import { pairingProblems } from '../../../src/agent/compaction/pairing.js';
import type { MessageParam } from '../../../src/model/types.js';
import { assistant, call, result, text, user } from './builders.js';

const valid: MessageParam[] = [
  user('Issue #12: title\n\nbody'),
  assistant([text('Looking.'), call('a', 'bash', { command: 'ls' }), call('b', 'bash', { command: 'pwd' })]),
  user([result('a', 'src'), result('b', '/w'), text('verify: ok')]),
  assistant('Done.'),
  user('continue'),
];

describe('pairingProblems', () => {
  it('accepts a valid conversation', () => {
    expect(pairingProblems(valid)).toEqual([]);
  });

  it('rejects an empty conversation and one that starts with the assistant', () => {
    expect(pairingProblems([])).toHaveLength(1);
    expect(pairingProblems([assistant('hi'), user('x')])).toEqual([
      'message 0 has role assistant; the first must be a user message',
    ]);
  });

  it('names a tool_use whose result is missing from the next message', () => {
    const broken = [...valid];
    broken[2] = user([result('a', 'src')]);
    expect(pairingProblems(broken)).toEqual(['message 1: tool_use b has no tool_result in message 2 (user)']);
  });

  it('names tool calls separated from their results by another message', () => {
    const broken = [valid[0], valid[1], user('interjection'), valid[2]].filter((m) => m !== undefined);
    const problems = pairingProblems(broken);
    expect(problems).toContain('message 1: tool_use a, b has no tool_result in message 2 (user)');
    expect(problems).toContain('message 3: tool_result a answers no tool_use of message 2');
    expect(problems).toContain('message 3: tool_result b answers no tool_use of message 2');
  });

  it('names a conversation that ends on unanswered calls', () => {
    expect(pairingProblems(valid.slice(0, 2))).toEqual([
      'message 1: tool_use a, b has no tool_result in any message (the conversation ends)',
    ]);
  });

  it('names a tool_result without a call (as after a bad cut)', () => {
    expect(pairingProblems([valid[2], valid[3]].filter((m) => m !== undefined))).toEqual([
      'message 0: tool_result a answers no tool_use of message -1',
      'message 0: tool_result b answers no tool_use of message -1',
    ]);
  });

  it('names duplicate tool_use ids, across and within messages', () => {
    const again = [
      ...valid,
      assistant([call('a', 'bash'), call('c', 'bash'), call('c', 'bash')]),
      user([result('a', 'x'), result('c', 'y')]),
    ];
    expect(pairingProblems(again)).toEqual([
      'message 5: duplicate tool_use id a (first used in message 1)',
      'message 5: duplicate tool_use id c (first used in message 5)',
    ]);
  });

  it('names a call answered twice and results placed after text', () => {
    const twice = [valid[0], valid[1], user([result('a', '1'), result('a', '2'), result('b', '3')])];
    expect(pairingProblems(twice.filter((m) => m !== undefined))).toEqual([
      'message 2: tool_result a answers the same tool_use twice',
    ]);
    const late = [valid[0], valid[1], user([result('a', '1'), text('note'), result('b', '3')])];
    expect(pairingProblems(late.filter((m) => m !== undefined))).toEqual([
      'message 2: tool_result b comes after other content (block 1)',
    ]);
  });

  it('does not count results placed in an assistant message', () => {
    const wrongRole = [valid[0], valid[1], assistant([result('a', '1'), result('b', '2')])];
    expect(pairingProblems(wrongRole.filter((m) => m !== undefined))).toEqual([
      'message 1: tool_use a, b has no tool_result in message 2 (assistant)',
    ]);
  });
});
