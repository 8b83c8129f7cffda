import type { ContentBlockParam, MessageParam } from '../../model/types.js';
import { compactJson } from './content-blocks.js';

/**
 * A deterministic token estimate, for budgets only (where to cut, whether a compaction shrank the
 * context); the API's `usage` is the truth about what a request cost.
 *
 * The rule: a token is about four characters. A string is `ceil(length / 4)`. A message is
 * `ceil(chars / 4)` where chars counts text blocks (and string content) by their text, tool results by
 * their content under the same rule, and every other block (tool calls, images, thinking) by the
 * length of its JSON. A list of messages is the sum of its messages, so that the estimate of a
 * suffix never depends on what precedes it.
 */
export function estimateTokens(value: MessageParam | readonly MessageParam[] | string): number {
  if (typeof value === 'string') return Math.ceil(value.length / 4);
  if (isMessageList(value)) return value.reduce((sum, message) => sum + estimateMessage(message), 0);
  return estimateMessage(value);
}

function isMessageList(value: MessageParam | readonly MessageParam[]): value is readonly MessageParam[] {
  return Array.isArray(value);
}

function estimateMessage(message: MessageParam): number {
  const content = message.content;
  const chars =
    typeof content === 'string' ? content.length : content.reduce((sum, block) => sum + blockChars(block), 0);
  return Math.ceil(chars / 4);
}

function blockChars(block: ContentBlockParam): number {
  if (block.type === 'text') return block.text.length;
  if (block.type === 'tool_result') {
    const content = block.content;
    if (content === undefined) return 0;
    if (typeof content === 'string') return content.length;
    return content.reduce(
      (sum, part) => sum + (part.type === 'text' ? part.text.length : compactJson(part).length),
      0,
    );
  }
  return compactJson(block).length;
}
