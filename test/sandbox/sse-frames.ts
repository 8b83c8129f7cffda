/** Server-sent events as the Messages API streams them: a frame, and one answer's first, text and last frames. */
export const sse = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
export const START = sse('message_start', {
  message: {
    id: 'msg_1',
    model: 'claude-sonnet-5-5',
    usage: {
      input_tokens: 12,
      cache_creation_input_tokens: 3000,
      cache_read_input_tokens: 9000,
      output_tokens: 1,
    },
  },
});
export const DELTA = sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hello' } });
export const END = `${sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 42 } })}${sse('message_stop', {})}`;
