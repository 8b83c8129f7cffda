import { type ApiFailure, invalidRequest } from './errors.js';
import type { ParsedMessagesRequest, RequestBlock, RequestMessage, RequestTool } from './types.js';

export const MAX_CACHE_BREAKPOINTS = 4;

export type ParseResult = { ok: true; request: ParsedMessagesRequest } | { ok: false; failure: ApiFailure };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Thrown inside the parser only, so each check reads as one line; caught in `parseMessagesRequest`. */
class Invalid extends Error {}

function fail(message: string): never {
  throw new Invalid(message);
}

function checkCacheControl(value: unknown, path: string): boolean {
  if (value === undefined || value === null) return false;
  if (!isObject(value) || value.type !== 'ephemeral') {
    fail(`${path}.cache_control.type: Input should be 'ephemeral'`);
  }
  if (value.ttl !== undefined && value.ttl !== '5m' && value.ttl !== '1h') {
    fail(`${path}.cache_control.ttl: Input should be '5m' or '1h'`);
  }
  return true;
}

function block(value: unknown, path: string): RequestBlock {
  if (!isObject(value)) fail(`${path}: Input should be a valid dictionary`);
  if (typeof value.type !== 'string') fail(`${path}.type: Field required`);
  if (value.type === 'text' && typeof value.text !== 'string') fail(`${path}.text: Field required`);
  if (value.type === 'text' && value.text === '') fail('messages: text content blocks must be non-empty');
  if (value.type === 'tool_use' && (typeof value.id !== 'string' || typeof value.name !== 'string')) {
    fail(`${path}: tool_use blocks need a string id and name`);
  }
  if (value.type === 'tool_result' && typeof value.tool_use_id !== 'string') {
    fail(`${path}.tool_use_id: Field required`);
  }
  return value as RequestBlock;
}

const nonEmpty =
  'messages: all messages must have non-empty content except for the optional final assistant message';

function message(value: unknown, index: number): RequestMessage {
  const path = `messages.${index}`;
  if (!isObject(value)) fail(`${path}: Input should be a valid dictionary`);
  const { role } = value;
  if (role !== 'user' && role !== 'assistant' && role !== 'system') {
    fail(`${path}.role: Input should be 'user', 'assistant' or 'system'`);
  }
  const { content } = value;
  if (typeof content === 'string') {
    if (content === '') fail(nonEmpty);
    return { role, content: [{ type: 'text', text: content }] };
  }
  if (!Array.isArray(content)) fail(`${path}.content: Input should be a valid list`);
  if (content.length === 0) fail(nonEmpty);
  const blocks = content.map((b, i) => block(b, `${path}.content.${i}`));
  // Mid-conversation system messages (SDK 1.x `SystemMessageParam`) hold text only.
  const other = role === 'system' ? blocks.findIndex((b) => b.type !== 'text') : -1;
  if (other >= 0) fail(`${path}.content.${other}.type: Input should be 'text'`);
  return { role, content: blocks };
}

function system(value: unknown): RequestBlock[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  if (!Array.isArray(value)) fail('system: Input should be a valid list');
  return value.map((b, i) => {
    const parsed = block(b, `system.${i}`);
    if (parsed.type !== 'text') fail(`system.${i}.type: Input should be 'text'`);
    return parsed;
  });
}

function tools(value: unknown): RequestTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail('tools: Input should be a valid list');
  const names = new Set<string>();
  return value.map((tool, i) => {
    if (!isObject(tool)) fail(`tools.${i}: Input should be a valid dictionary`);
    if (typeof tool.name !== 'string') fail(`tools.${i}.name: Field required`);
    if (names.has(tool.name)) fail('tools: Tool names must be unique.');
    names.add(tool.name);
    return tool as RequestTool;
  });
}

function countBreakpoints(request: ParsedMessagesRequest): number {
  let count = 0;
  request.tools.forEach((tool, i) => {
    if (checkCacheControl(tool.cache_control, `tools.${i}`)) count += 1;
  });
  request.system.forEach((b, i) => {
    if (checkCacheControl(b.cache_control, `system.${i}`)) count += 1;
  });
  request.messages.forEach((m, i) => {
    m.content.forEach((b, j) => {
      if (checkCacheControl(b.cache_control, `messages.${i}.content.${j}`)) count += 1;
    });
  });
  return count;
}

/**
 * Validates a `/v1/messages` (or `count_tokens`) body the way the API does, with its pydantic-style
 * messages, and normalizes it for scripts and for cache accounting.
 */
export function parseMessagesRequest(body: unknown, endpoint: 'messages' | 'count_tokens'): ParseResult {
  try {
    if (!isObject(body)) fail('invalid request: the body must be a JSON object');
    if (typeof body.model !== 'string') fail('model: Field required');
    let maxTokens = 0;
    if (endpoint === 'messages') {
      if (body.max_tokens === undefined) fail('max_tokens: Field required');
      if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
        fail('max_tokens: Input should be a valid integer');
      }
      if (body.max_tokens < 1) fail('max_tokens: Input should be greater than or equal to 1');
      maxTokens = body.max_tokens;
    }
    if (body.stream !== undefined && typeof body.stream !== 'boolean') {
      fail('stream: Input should be a valid boolean');
    }
    if (body.messages === undefined) fail('messages: Field required');
    if (!Array.isArray(body.messages)) fail('messages: Input should be a valid list');
    if (body.messages.length === 0) fail('messages: at least one message is required');
    const request: ParsedMessagesRequest = {
      model: body.model,
      maxTokens,
      system: system(body.system),
      messages: body.messages.map(message),
      tools: tools(body.tools),
      stream: endpoint === 'messages' && body.stream === true,
      body,
    };
    if (request.messages[0]?.role !== 'user') fail('messages: first message must use the "user" role');
    const breakpoints = countBreakpoints(request);
    if (breakpoints > MAX_CACHE_BREAKPOINTS) {
      fail(
        `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`,
      );
    }
    return { ok: true, request };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, failure: invalidRequest(error.message) };
    throw error;
  }
}
