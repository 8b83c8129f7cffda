import { describe, expect, it } from 'vitest';
import { NO_USAGE } from '../../../src/engines/claude-code/stream-events.js';
import { assistant, read, toolResult, toolUse, usage, user } from './stream-lines.js';

/**
 * The stream reader fed hostile and odd lines directly: what the CLI prints is not ours, and a
 * wrong count here is a wrong bill (responses, usage) or a hidden failure (tool errors).
 */
describe('the stream reader: one response across several lines', () => {
  it('regression: a response told over several lines (one per content block) is one model call with the usage of its first line', () => {
    const { events, state } = read([
      assistant({
        id: 'msg_1',
        model: 'claude-sonnet-5-5',
        content: [{ type: 'text', text: 'Looking.' }],
        usage: usage(10, 200, 3000, 1),
      }),
      // The same response's next block; the CLI repeats the id, and a later line's usage is not a new request.
      assistant({
        id: 'msg_1',
        model: 'claude-sonnet-5-5',
        content: [toolUse('t1', 'Bash')],
        usage: usage(99_999),
      }),
      assistant({
        id: 'msg_1',
        model: 'claude-sonnet-5-5',
        content: [toolUse('t2', 'Read')],
        usage: usage(88_888),
      }),
    ]);
    expect(state.modelCalls).toBe(1);
    expect(state.toolCalls).toBe(2);
    expect(state.lastUsage).toEqual({ input: 10, cacheWrite: 200, cacheRead: 3000, output: 1 });
    expect(events.filter((e) => e.type === 'response')).toEqual([
      {
        type: 'response',
        id: 'msg_1',
        model: 'claude-sonnet-5-5',
        usage: { input: 10, cacheWrite: 200, cacheRead: 3000, output: 1 },
      },
    ]);
    expect(events.map((e) => e.type)).toEqual(['response', 'tool_call', 'tool_call']);
  });

  it('regression: a response id seen again after another response is still not counted twice', () => {
    const { state } = read([
      assistant({ id: 'a', content: [], usage: usage(1) }),
      assistant({ id: 'b', content: [], usage: usage(2) }),
      assistant({ id: 'a', content: [], usage: usage(3) }),
    ]);
    expect(state.modelCalls).toBe(2);
    // The newest request is b's: a's repeated line does not move the context back.
    expect(state.lastUsage).toEqual({ input: 2, cacheWrite: 0, cacheRead: 0, output: 0 });
  });

  it('two responses are two model calls, the newest one the context', () => {
    const { events, state } = read([
      assistant({ id: 'm1', model: 'x', content: [], usage: usage(5, 0, 0, 1) }),
      assistant({ id: 'm2', model: 'x', content: [], usage: usage(7, 0, 6, 2) }),
    ]);
    expect(state.modelCalls).toBe(2);
    expect(state.lastUsage).toEqual({ input: 7, cacheWrite: 0, cacheRead: 6, output: 2 });
    expect(events.map((e) => (e.type === 'response' ? e.id : e.type))).toEqual(['m1', 'm2']);
  });

  it('a message without an id is a response of its own each time, named in order', () => {
    const { events, state } = read([
      assistant({ content: [] }),
      assistant({ id: 42, content: [] }),
      assistant({ content: [] }),
    ]);
    expect(state.modelCalls).toBe(3);
    expect(events.map((e) => (e.type === 'response' ? e.id : ''))).toEqual([
      'response-1',
      'response-2',
      'response-3',
    ]);
    // No model named, no usage: nothing invented.
    expect(events[0]).toEqual({ type: 'response', id: 'response-1', model: '', usage: NO_USAGE });
  });
});

describe('the stream reader: tool calls and tool results', () => {
  it('counts only tool_use blocks as tool calls, each told with its id, name and input', () => {
    const { events, state } = read([
      assistant({
        id: 'm',
        content: [
          { type: 'text', text: 'tool_use' },
          toolUse('t1', 'Bash', { command: 'ls' }),
          { type: 'thinking', thinking: '' },
          { type: 'tool_use' },
          null,
        ],
      }),
    ]);
    expect(state.toolCalls).toBe(2);
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', id: 't1', name: 'Bash', input: { command: 'ls' } },
      // A block without id or name is still a call: told, with placeholders.
      { type: 'tool_call', id: '', name: 'tool', input: undefined },
    ]);
  });

  it('regression: a tool result with is_error true is counted as a tool error; others are not', () => {
    const { events, state } = read([
      user([
        toolResult('t1', 'Exit code 1', true),
        toolResult('t2', 'fine', false),
        toolResult('t3', 'fine'),
        // Only a real boolean says so: a string is not the CLI's form.
        toolResult('t4', 'fine', 'true'),
        toolResult('t5', [{ type: 'text', text: 'Permission denied' }], true),
      ]),
    ]);
    expect(state.toolErrors).toBe(2);
    expect(events.map((e) => (e.type === 'tool_result' ? [e.id, e.isError] : e.type))).toEqual([
      ['t1', true],
      ['t2', false],
      ['t3', false],
      ['t4', false],
      ['t5', true],
    ]);
  });

  it('tool errors add up over the lines of a call', () => {
    const { state } = read([
      user([toolResult('a', 'x', true)]),
      user([toolResult('b', 'y', true)]),
      user([toolResult('c', 'z', false)]),
    ]);
    expect(state.toolErrors).toBe(2);
  });

  it("measures a result's size from its text, a string or text blocks, never other blocks", () => {
    const { events } = read([
      user([
        toolResult('s', 'hello'),
        toolResult('b', [
          { type: 'text', text: 'abc' },
          { type: 'image', source: { data: 'x'.repeat(500) } },
          { type: 'text', text: 'de' },
          null,
        ]),
        toolResult('n', { text: 'not a list' }),
        // A null block is skipped, not read (reading it would throw and lose the whole stream).
        null,
        { type: 'tool_result', content: 'no id' },
      ]),
    ]);
    expect(events).toEqual([
      { type: 'tool_result', id: 's', isError: false, chars: 5 },
      { type: 'tool_result', id: 'b', isError: false, chars: 5 },
      { type: 'tool_result', id: 'n', isError: false, chars: 0 },
      { type: 'tool_result', id: '', isError: false, chars: 5 },
    ]);
  });

  it('a user line that is only the prompt (text, no tool results) tells nothing', () => {
    const { events, state } = read([
      user('the task'),
      user([{ type: 'text', text: 'the task' }]),
      assistant({ id: 'm', content: 'not a list' }),
    ]);
    expect(state).toMatchObject({ modelCalls: 1, toolCalls: 0, toolErrors: 0 });
    expect(events.map((e) => e.type)).toEqual(['response']);
  });
});
