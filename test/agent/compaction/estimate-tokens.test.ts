import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../src/agent/compaction/estimate-tokens.js';
import { assistant, call, result, text, user } from './builders.js';

describe('estimateTokens', () => {
  it('is ceil(chars / 4) for strings', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(4000))).toBe(1000);
  });

  it('counts text by its characters, string content the same as one text block', () => {
    expect(estimateTokens(user('x'.repeat(9)))).toBe(3);
    expect(estimateTokens(user([text('x'.repeat(9))]))).toBe(3);
    expect(estimateTokens(user([text('x'.repeat(4)), text('y'.repeat(5))]))).toBe(3);
  });

  it('counts tool results by their content and tool calls by their JSON', () => {
    expect(estimateTokens(user([result('id', 'x'.repeat(40))]))).toBe(10);
    expect(
      estimateTokens(user([{ type: 'tool_result', tool_use_id: 'id', content: [text('x'.repeat(8))] }])),
    ).toBe(2);
    const use = call('toolu_1', 'bash', { command: 'npm test' });
    expect(estimateTokens(assistant([use]))).toBe(Math.ceil(JSON.stringify(use).length / 4));
  });

  it('sums messages, so a list is the sum of its parts', () => {
    const a = user('x'.repeat(5));
    const b = assistant('y'.repeat(5));
    expect(estimateTokens([a, b])).toBe(estimateTokens(a) + estimateTokens(b));
    expect(estimateTokens([a, b])).toBe(4);
    expect(estimateTokens([])).toBe(0);
  });

  it('is deterministic and grows with the content', () => {
    const conversation = [user('issue'), assistant([text('plan'), call('a', 'bash', { command: 'ls -la' })])];
    expect(estimateTokens(conversation)).toBe(estimateTokens(structuredClone(conversation)));
    expect(estimateTokens([...conversation, user([result('a', 'z'.repeat(100))])])).toBeGreaterThan(
      estimateTokens(conversation),
    );
  });
});
