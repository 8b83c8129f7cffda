import { describe, expect, it } from 'vitest';
import { extractToolFailures, summariseInput } from '../../../src/agent/compaction/tool-failures.js';
import type { MessageParam } from '../../../src/model/types.js';
import { assistant, call, result, user } from './builders.js';

function failingSession(count: number): MessageParam[] {
  const messages: MessageParam[] = [user('Issue #1')];
  for (let i = 0; i < count; i++) {
    messages.push(
      assistant([call(`ok${i}`, 'bash', { command: 'ls' }), call(`f${i}`, 'bash', { command: `make ${i}` })]),
    );
    messages.push(user([result(`ok${i}`, 'fine'), result(`f${i}`, `exit ${i}\nstderr line`, true)]));
  }
  return messages;
}

describe('extractToolFailures', () => {
  it('names the tool and input of each failed call, newest last, skipping successes', () => {
    const failures = extractToolFailures(failingSession(3));
    expect(failures).toEqual([
      { toolUseId: 'f0', tool: 'bash', input: 'make 0', error: 'exit 0 stderr line', messageIndex: 2 },
      { toolUseId: 'f1', tool: 'bash', input: 'make 1', error: 'exit 1 stderr line', messageIndex: 4 },
      { toolUseId: 'f2', tool: 'bash', input: 'make 2', error: 'exit 2 stderr line', messageIndex: 6 },
    ]);
  });

  it('keeps at most 8 by default, the newest', () => {
    const failures = extractToolFailures(failingSession(12));
    expect(failures).toHaveLength(8);
    expect(failures.map((f) => f.input)).toEqual([4, 5, 6, 7, 8, 9, 10, 11].map((i) => `make ${i}`));
    expect(extractToolFailures(failingSession(12), { max: 2 }).map((f) => f.toolUseId)).toEqual([
      'f10',
      'f11',
    ]);
    expect(extractToolFailures(failingSession(3), { max: 0 })).toEqual([]);
  });

  it('truncates the error and the input', () => {
    const messages = [
      user('Issue'),
      assistant([call('a', 'bash', { command: `echo ${'c'.repeat(1000)}` })]),
      user([
        {
          type: 'tool_result' as const,
          tool_use_id: 'a',
          is_error: true,
          content: [{ type: 'text' as const, text: 'e'.repeat(1000) }],
        },
      ]),
    ];
    const [failure] = extractToolFailures(messages, { maxChars: 50 });
    expect(failure?.error).toBe(`${'e'.repeat(50)}… [950 more chars]`);
    expect(failure?.input).toBe(`echo ${'c'.repeat(45)}… [955 more chars]`);
    expect(extractToolFailures(messages)[0]?.error).toBe(`${'e'.repeat(300)}… [700 more chars]`);
  });

  it('names an unknown tool when the call is not in the messages', () => {
    expect(extractToolFailures([user([result('gone', 'boom', true)])])).toEqual([
      { toolUseId: 'gone', tool: 'unknown tool', input: '', error: 'boom', messageIndex: 0 },
    ]);
  });
});

describe('summariseInput', () => {
  it('quotes the bash command, the editor command and path, else JSON', () => {
    expect(summariseInput({ command: 'npm test' })).toBe('npm test');
    expect(summariseInput({ command: 'str_replace', path: 'src/a.ts', old_str: 'x', new_str: 'y' })).toBe(
      'str_replace src/a.ts',
    );
    expect(summariseInput({ path: 'README.md' })).toBe('README.md');
    expect(summariseInput({ query: 'x' })).toBe('{"query":"x"}');
    expect(summariseInput(['a'])).toBe('["a"]');
  });
});
