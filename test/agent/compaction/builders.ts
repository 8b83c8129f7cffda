import type {
  CallModel,
  ContentBlockParam,
  MessageParam,
  ModelRequest,
  ModelResponse,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '../../../src/model/types.js';

export const text = (value: string): TextBlockParam => ({ type: 'text', text: value });

export const call = (id: string, name: string, input: unknown = {}): ToolUseBlockParam => ({
  type: 'tool_use',
  id,
  name,
  input,
});

export const result = (id: string, content: string, isError = false): ToolResultBlockParam =>
  isError
    ? { type: 'tool_result', tool_use_id: id, content, is_error: true }
    : { type: 'tool_result', tool_use_id: id, content };

export const user = (content: string | ContentBlockParam[]): MessageParam => ({ role: 'user', content });
export const assistant = (content: string | ContentBlockParam[]): MessageParam => ({
  role: 'assistant',
  content,
});

export const NO_FILES = { read: [], created: [], modified: [] };

export const SUMMARY = '## Decisions\nUse a map.\n\n## Current state\nHalf done.\n\n## Open task\nFinish it.';

export interface FakeModel {
  callModel: CallModel;
  requests: ModelRequest[];
  signals: (AbortSignal | undefined)[];
}

/** A callModel that records its requests and answers `answer` (text) or runs `behaviour`. */
export function fakeModel(
  answer: string | ((request: ModelRequest, signal?: AbortSignal) => Promise<ModelResponse>) = SUMMARY,
): FakeModel {
  const requests: ModelRequest[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const callModel: CallModel = async (request, signal) => {
    requests.push(request);
    signals.push(signal);
    if (typeof answer !== 'string') return answer(request, signal);
    return response(answer);
  };
  return { callModel, requests, signals };
}

export function response(answer: string, overrides: Partial<ModelResponse> = {}): ModelResponse {
  return {
    model: 'claude-test',
    content: [text(answer)],
    stopReason: 'end_turn',
    usage: { input: 1000, cacheWrite: 0, cacheRead: 0, output: 200 },
    costUsd: 0.0042,
    ...overrides,
  };
}

/** The text of the single prompt the summariser received. */
export function promptOf(request: ModelRequest | undefined): string {
  const content = request?.messages[0]?.content;
  if (typeof content !== 'string') throw new Error('expected a string prompt');
  return content;
}

/** A user message's first block's text (the summary block after a compaction). */
export function firstText(messages: readonly MessageParam[]): string {
  const content = messages[0]?.content;
  if (typeof content === 'string') return content;
  const block = content?.[0];
  return block?.type === 'text' ? block.text : '';
}
