import { type ApiErrorType, errorBody } from './errors.js';
import type { MessageJson, OutputBlock } from './message.js';

/** Code points per `text_delta` and per `input_json_delta`: small, so clients must reassemble. */
const CHUNK = 24;

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function chunks(text: string): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += CHUNK) out.push(points.slice(i, i + CHUNK).join(''));
  return out;
}

function blockFrames(block: OutputBlock, index: number): string[] {
  if (block.type === 'text') {
    return [
      frame('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      }),
      ...chunks(block.text).map((text) =>
        frame('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text },
        }),
      ),
      frame('content_block_stop', { type: 'content_block_stop', index }),
    ];
  }
  const start = { type: 'tool_use', id: block.id, name: block.name, input: {} };
  return [
    frame('content_block_start', { type: 'content_block_start', index, content_block: start }),
    ...chunks(JSON.stringify(block.input)).map((partial_json) =>
      frame('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json },
      }),
    ),
    frame('content_block_stop', { type: 'content_block_stop', index }),
  ];
}

export interface StreamFailure {
  type: ApiErrorType;
  message: string;
  /** Complete content blocks sent before the error event. */
  afterBlocks: number;
}

/**
 * The server-sent events of a streamed answer, one string per event, in the API's order: message_start
 * (empty content, input usage, output_tokens 1), a ping, each block's start/deltas/stop, message_delta
 * (stop reason, output tokens), message_stop. A failure cuts it short with an `error` event.
 */
export function messageEvents(message: MessageJson, failure?: StreamFailure): string[] {
  const start = {
    ...message,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...message.usage, output_tokens: 1 },
  };
  const events = [
    frame('message_start', { type: 'message_start', message: start }),
    frame('ping', { type: 'ping' }),
  ];
  const sent = failure ? message.content.slice(0, failure.afterBlocks) : message.content;
  sent.forEach((block, index) => {
    events.push(...blockFrames(block, index));
  });
  if (failure) {
    events.push(frame('error', errorBody(failure.type, failure.message)));
    return events;
  }
  events.push(
    frame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: message.usage.output_tokens },
    }),
    frame('message_stop', { type: 'message_stop' }),
  );
  return events;
}
