import type { ApiErrorType } from './errors.js';
import type { ParsedMessagesRequest, ReplyBlock, Script, ScriptedReply, StopReason } from './types.js';

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /** Assigned by the emulator (`toolu_<n>`) when absent. */
  id?: string;
}

export const reply = {
  text: (text: string, stopReason: StopReason = 'end_turn'): ScriptedReply => ({
    content: [{ type: 'text', text }],
    stopReason,
  }),
  /** The text, when given, comes first, as the model says what it is about to do. */
  toolUse: (calls: readonly ToolCall[], text?: string): ScriptedReply => ({
    content: [
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...calls.map((call): ReplyBlock => ({ type: 'tool_use', ...call })),
    ],
    stopReason: 'tool_use',
  }),
  error: (
    status: number,
    type: ApiErrorType,
    message: string,
    headers?: Record<string, string>,
  ): ScriptedReply => ({ error: { status, type, message, ...(headers ? { headers } : {}) } }),
};

export type QueuedReply = ScriptedReply | ((request: ParsedMessagesRequest) => ScriptedReply);

/**
 * Answers with `replies` in order, one per request; afterwards every request gets 500 `api_error`
 * 'script exhausted', which a test sees instead of a silent default.
 */
export function scriptQueue(replies: readonly QueuedReply[]): Script {
  let next = 0;
  return (request) => {
    const queued = replies[next];
    if (queued === undefined) return reply.error(500, 'api_error', 'script exhausted');
    next += 1;
    return typeof queued === 'function' ? queued(request) : queued;
  };
}

/** The default script: answers with the text of the last user message. */
export const echoScript: Script = (request) => {
  const last = request.messages.at(-1);
  const text = (last?.role === 'user' ? last.content : [])
    .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
    .join('\n');
  return reply.text(text === '' ? '(nothing to echo)' : text);
};
