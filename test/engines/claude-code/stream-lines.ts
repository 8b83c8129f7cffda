import { createStreamReader, type StreamEvent } from '../../../src/engines/claude-code/stream-events.js';

/** Lines of Claude Code's stream-json output, built for the stream reader's tests. */
export const SESSION = '00000001-1111-4222-8333-444444444444';
export const usage = (input: number, cacheWrite = 0, cacheRead = 0, output = 0) => ({
  input_tokens: input,
  cache_creation_input_tokens: cacheWrite,
  cache_read_input_tokens: cacheRead,
  output_tokens: output,
});
export const assistant = (message: Record<string, unknown>) =>
  JSON.stringify({ type: 'assistant', message, session_id: SESSION });
export const user = (content: unknown) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content }, session_id: SESSION });
export const toolUse = (id: string, name: string, input: unknown = {}) => ({
  type: 'tool_use',
  id,
  name,
  input,
});
export const toolResult = (id: string, content: unknown, isError?: unknown) => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
  ...(isError === undefined ? {} : { is_error: isError }),
});
export const RESULT = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done' });

export function read(lines: readonly string[]) {
  const events: StreamEvent[] = [];
  const reader = createStreamReader((event) => events.push(event));
  for (const line of lines) reader.line(line);
  return { events, state: reader.state() };
}
