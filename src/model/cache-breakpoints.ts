import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam, ModelRequest, ToolDefinition } from './types.js';

const EPHEMERAL = { type: 'ephemeral' } as const;

type Cacheable = { cache_control?: Anthropic.CacheControlEphemeral | null };

function marked<T extends object>(block: T): T {
  return { ...block, cache_control: EPHEMERAL } as T;
}

/** Marks the last content block of a message, turning string content into one text block. */
function markLastBlock(message: MessageParam): MessageParam {
  const blocks: ContentBlockParam[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
  const last = blocks.at(-1);
  // Thinking blocks cannot carry a breakpoint; an empty message has nothing to mark.
  if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') return message;
  blocks[blocks.length - 1] = marked(last as ContentBlockParam & Cacheable);
  return { ...message, content: blocks };
}

/**
 * The request body's cacheable parts, with breakpoints where a long session reuses the most:
 * the last tool (tools are the start of the prefix), the last system block, and a rolling pair on
 * the conversation — the newest message and the user message before it, so the previous request's
 * cache entry is still found when one exchange adds more than the API's 20-block lookback.
 * Four breakpoints, the API's maximum. The caller's conversation is never mutated.
 */
export function withCacheBreakpoints(request: Pick<ModelRequest, 'system' | 'messages' | 'tools'>): {
  system: Anthropic.TextBlockParam[];
  messages: MessageParam[];
  tools: ToolDefinition[];
} {
  const tools = request.tools.map((tool, i) =>
    i === request.tools.length - 1 ? marked(tool as ToolDefinition & Cacheable) : tool,
  );
  const system: Anthropic.TextBlockParam[] = request.system
    .filter((text) => text !== '')
    .map((text) => ({ type: 'text', text }));
  const lastSystem = system.at(-1);
  if (lastSystem) system[system.length - 1] = marked(lastSystem);

  const messages = [...request.messages];
  const lastIndex = messages.length - 1;
  let previousUser = -1;
  for (let i = lastIndex - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      previousUser = i;
      break;
    }
  }
  for (const index of [previousUser, lastIndex]) {
    const message = messages[index];
    if (index >= 0 && message) messages[index] = markLastBlock(message);
  }
  return { system, messages, tools };
}
