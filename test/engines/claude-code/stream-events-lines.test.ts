import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  contextOf,
  createStreamReader,
  NO_USAGE,
  num,
  usageOf,
} from '../../../src/engines/claude-code/stream-events.js';
import { CLAUDE_CODE_VERSION } from '../../helpers/claude-code-version.js';
import { assistant, RESULT, read, SESSION, toolResult, toolUse, user } from './stream-lines.js';

/** The stream reader on lines it must skip or read whole, and on what the real CLI printed. */

describe('the stream reader: lines that are not what it reads', () => {
  it('skips warnings, malformed and partial JSON, and reads the lines around them', () => {
    const full = assistant({ id: 'm', content: [toolUse('t', 'Bash')] });
    const { state } = read([
      'Warning: something the CLI printed',
      '',
      '   ',
      full.slice(0, full.length / 2),
      '{"type":"assistant","message":',
      '{not json}',
      '[1,2,3]',
      full,
      // JSON, but not an object: `null` read as one would throw on its first property.
      'null',
      '42',
      '"a string"',
      RESULT,
    ]);
    expect(state).toMatchObject({ modelCalls: 1, toolCalls: 1, sessionId: SESSION });
    expect(state.result?.json.result).toBe('done');
  });

  it('reads a line with surrounding whitespace (a CRLF or an indent), keeping the trimmed line', () => {
    const { state } = read([`  ${RESULT}\r`]);
    expect(state.result).toEqual({ json: JSON.parse(RESULT), line: RESULT });
  });

  it('ignores unknown event types and messages that are not objects', () => {
    const { events, state } = read([
      JSON.stringify({ type: 'stream_event', event: { type: 'message_start' } }),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary' }),
      JSON.stringify({ type: 'assistant', message: 'a string' }),
      JSON.stringify({ type: 'assistant', message: null }),
      JSON.stringify({ type: 'user', message: 7 }),
      JSON.stringify({ type: 'rate_limit_event', message: { id: 'x', content: [toolUse('t', 'Bash')] } }),
      // Shaped like a tool result, but not a user line: no tool error is counted from it.
      JSON.stringify({ type: 'tool_progress', message: { content: [toolResult('t', 'failed', true)] } }),
    ]);
    expect(events).toEqual([]);
    expect(state).toEqual({
      result: undefined,
      modelCalls: 0,
      toolCalls: 0,
      toolErrors: 0,
      lastUsage: undefined,
    });
  });

  it('takes the result from a result line, or any line that says is_error, the last one winning', () => {
    const bare = JSON.stringify({ is_error: true, result: 'failed' });
    expect(read([bare]).state.result?.json.result).toBe('failed');
    expect(read([bare, RESULT]).state.result?.line).toBe(RESULT);
    // is_error must be a boolean to make a line the result; a line typed result is one without it.
    expect(read([JSON.stringify({ is_error: 'yes' })]).state.result).toBeUndefined();
    const typed = JSON.stringify({ type: 'result', subtype: 'error_during_execution' });
    expect(read([typed]).state.result?.line).toBe(typed);
  });

  it('names the session from any line that carries an id, the last one winning; none without one', () => {
    expect(read([RESULT]).state).not.toHaveProperty('sessionId');
    expect(read([RESULT]).state.result).toBeDefined();
    const { state } = read([
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 'first' }),
      JSON.stringify({ type: 'system', session_id: 12 }),
      JSON.stringify({ type: 'result', is_error: false, session_id: 'second' }),
    ]);
    expect(state.sessionId).toBe('second');
  });

  it('reads a 5 MB tool result line whole', () => {
    const huge = 'x'.repeat(5_000_000);
    const { events, state } = read([user([toolResult('big', huge, true)]), RESULT]);
    expect(events).toEqual([{ type: 'tool_result', id: 'big', isError: true, chars: 5_000_000 }]);
    expect(state.toolErrors).toBe(1);
    expect(state.result).toBeDefined();
  });

  it('works without a listener', () => {
    const reader = createStreamReader();
    reader.line(assistant({ id: 'm', content: [toolUse('t', 'Bash')] }));
    reader.line(user([toolResult('t', 'no', true)]));
    expect(reader.state()).toMatchObject({ modelCalls: 1, toolCalls: 1, toolErrors: 1 });
  });
});

describe('the stream the real CLI printed (recorded)', () => {
  const fixture = (name: string) =>
    readFileSync(join('test/fixtures/claude-code', CLAUDE_CODE_VERSION, name), 'utf8').split('\n');

  it('a tool call, then the answer: two responses, one call, no error, the result last', () => {
    const { events, state } = read(fixture('stream-tool-call.jsonl'));
    expect(state).toMatchObject({ sessionId: SESSION, modelCalls: 2, toolCalls: 1, toolErrors: 0 });
    expect(events.map((e) => e.type)).toEqual(['response', 'tool_call', 'tool_result', 'response']);
    expect(state.result?.json).toMatchObject({ type: 'result', is_error: false, result: 'Wrote x.txt.' });
  });
  it('regression: one response over three lines (text, two tool calls), one tool failing: two responses, one tool error', () => {
    const { events, state } = read(fixture('stream-split-tool-error.jsonl'));
    expect(state).toMatchObject({
      sessionId: expect.any(String),
      modelCalls: 2,
      toolCalls: 2,
      toolErrors: 1,
    });
    expect(events.map((e) => (e.type === 'tool_result' ? `tool_result:${e.isError}` : e.type))).toEqual([
      'response',
      'tool_call',
      'tool_call',
      'tool_result:false',
      'tool_result:true',
      'response',
    ]);
  });
});

describe('usage and numbers', () => {
  it('reads the four token counts, and 0 for anything not a finite number', () => {
    expect(
      usageOf({
        input_tokens: 1,
        cache_creation_input_tokens: 2,
        cache_read_input_tokens: 3,
        output_tokens: 4,
      }),
    ).toEqual({ input: 1, cacheWrite: 2, cacheRead: 3, output: 4 });
    expect(
      usageOf({ input_tokens: '5', output_tokens: Number.NaN, cache_read_input_tokens: Infinity }),
    ).toEqual(NO_USAGE);
    expect(usageOf(null)).toEqual(NO_USAGE);
    expect(usageOf('usage')).toEqual(NO_USAGE);
    expect([num(2.5), num(-1), num(Number.NEGATIVE_INFINITY), num(undefined)]).toEqual([2.5, -1, 0, 0]);
  });

  it("a request's context is all four counts added", () => {
    expect(contextOf({ input: 1, cacheWrite: 20, cacheRead: 300, output: 4000 })).toBe(4321);
  });
});
