import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '../../model/types.js';

/** A message's content as blocks: the API accepts a bare string as shorthand for one text block. */
export function blocksOf(message: MessageParam): ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

export function toolUsesOf(message: MessageParam): ToolUseBlockParam[] {
  if (message.role !== 'assistant' || typeof message.content === 'string') return [];
  return message.content.filter((block): block is ToolUseBlockParam => block.type === 'tool_use');
}

export function toolResultsOf(message: MessageParam): ToolResultBlockParam[] {
  if (message.role !== 'user' || typeof message.content === 'string') return [];
  return message.content.filter((block): block is ToolResultBlockParam => block.type === 'tool_result');
}

/** The text blocks of a message, joined; other blocks (tool calls, images) are not text. */
export function textOf(message: MessageParam): string {
  return blocksOf(message)
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n');
}

/** A tool result's readable text; non-text parts (images, documents) appear as `[type]`. */
export function toolResultText(block: ToolResultBlockParam): string {
  const content = block.content;
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

/**
 * One-line JSON for tool inputs. Inputs come from the API as JSON, but a hand-built conversation may
 * hold a value JSON cannot encode (a cycle, a bigint); that must not break a compaction.
 */
export function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
