import type { RequestMessage } from './types.js';

function idsOf(message: RequestMessage | undefined, type: 'tool_use' | 'tool_result'): Set<string> {
  const ids = new Set<string>();
  for (const block of message?.content ?? []) {
    const id = type === 'tool_use' ? block.id : block.tool_use_id;
    if (block.type === type && typeof id === 'string') ids.add(id);
  }
  return ids;
}

function checkAssistant(messages: RequestMessage[], i: number, seen: Set<string>): string | undefined {
  const message = messages[i];
  if (!message) return undefined;
  for (const [j, block] of message.content.entries()) {
    if (block.type === 'tool_result') {
      return `messages.${i}.content.${j}: \`tool_result\` blocks can only appear in \`user\` messages`;
    }
    if (block.type !== 'tool_use' || typeof block.id !== 'string') continue;
    if (seen.has(block.id)) return `messages.${i}.content.${j}: \`tool_use\` ids must be unique`;
    seen.add(block.id);
  }
  const next = messages[i + 1];
  const answered = next?.role === 'user' ? idsOf(next, 'tool_result') : new Set<string>();
  const missing = [...idsOf(message, 'tool_use')].filter((id) => !answered.has(id));
  if (missing.length === 0) return undefined;
  return (
    `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
    `${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
  );
}

function checkUser(messages: RequestMessage[], i: number): string | undefined {
  const message = messages[i];
  if (!message) return undefined;
  const previous = messages[i - 1];
  const asked = previous?.role === 'assistant' ? idsOf(previous, 'tool_use') : new Set<string>();
  const answered = new Set<string>();
  for (const [j, block] of message.content.entries()) {
    if (block.type === 'tool_use') {
      return `messages.${i}.content.${j}: \`tool_use\` blocks can only appear in \`assistant\` messages`;
    }
    if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    const id = block.tool_use_id;
    if (!asked.has(id)) {
      return (
        `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
      );
    }
    if (answered.has(id)) return `messages.${i}.content.${j}: \`tool_result\` ids must be unique: ${id}`;
    answered.add(id);
  }
  return undefined;
}

/**
 * The API's tool pairing rule: every `tool_use` is answered by a `tool_result` in the very next (user)
 * message, and every `tool_result` answers a `tool_use` of the very previous (assistant) message.
 * Returns the API's 400 message for the first violation, in message order.
 */
export function checkToolPairing(messages: RequestMessage[]): string | undefined {
  const seen = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const problem = message.role === 'assistant' ? checkAssistant(messages, i, seen) : checkUser(messages, i);
    if (problem) return problem;
  }
  return undefined;
}
