import type { ContentBlockParam, MessageParam } from '../../model/types.js';
import { clip, clipMiddle } from './clip.js';
import { blocksOf, compactJson, toolResultText, toolUsesOf } from './content-blocks.js';

export interface TranscriptOptions {
  /** Cap on the whole transcript; beyond it the head and the tail are kept. */
  maxChars: number;
}

/** Tool inputs and results are clipped one by one first, so that one huge output cannot crowd out the rest. */
export const TOOL_INPUT_CHARS = 300;
export const TOOL_RESULT_CHARS = 500;

/**
 * The dropped part of a conversation as plain text for the summariser: `[user]` / `[assistant]`
 * headers, text as is, tool calls as `tool call <name>: <json>` and results as
 * `tool result [(error)] <name>: <text>`.
 */
export function renderTranscript(messages: readonly MessageParam[], options: TranscriptOptions): string {
  // Results name their tool, which lives in the previous message: collect the names first.
  const toolNames = new Map<string, string>();
  for (const message of messages) for (const use of toolUsesOf(message)) toolNames.set(use.id, use.name);

  const rendered = messages.map((message) => {
    const lines = blocksOf(message)
      .map((block) => renderBlock(block, toolNames))
      .filter((line) => line !== '');
    return [`[${message.role}]`, ...lines].join('\n');
  });
  return clipMiddle(rendered.join('\n\n'), options.maxChars);
}

function renderBlock(block: ContentBlockParam, toolNames: ReadonlyMap<string, string>): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return `tool call ${block.name}: ${clip(compactJson(block.input), TOOL_INPUT_CHARS)}`;
    case 'tool_result': {
      const name = toolNames.get(block.tool_use_id) ?? block.tool_use_id;
      const label = block.is_error === true ? 'tool result (error)' : 'tool result';
      return `${label} ${name}: ${clip(toolResultText(block), TOOL_RESULT_CHARS)}`;
    }
    // The model's private reasoning is not part of the handover, and redacted reasoning is unreadable.
    case 'thinking':
    case 'redacted_thinking':
      return '';
    default:
      return `[${block.type}]`;
  }
}
