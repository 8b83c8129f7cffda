import type { MessageParam } from '../../model/types.js';
import { toolResultsOf, toolUsesOf } from './content-blocks.js';

/**
 * What the Messages API would reject about how a conversation pairs tool calls with their results,
 * one sentence per problem naming the message index and the ids; empty when the pairing is valid.
 *
 * Rules: the first message is a user message; every tool_use of an assistant message is answered
 * by a tool_result in the immediately next message, which is a user message (a conversation may not
 * end on unanswered calls); every tool_result answers a tool_use of the immediately preceding
 * assistant message, once; tool_use ids are unique; and in a user message the tool_results come
 * before any other content.
 */
export function pairingProblems(messages: readonly MessageParam[]): string[] {
  const problems: string[] = [];
  const first = messages[0];
  if (!first) return ['the conversation is empty; it must start with a user message'];
  if (first.role !== 'user')
    problems.push(`message 0 has role ${first.role}; the first must be a user message`);

  const seenToolUse = new Map<string, number>();
  messages.forEach((message, index) => {
    for (const use of toolUsesOf(message)) {
      const earlier = seenToolUse.get(use.id);
      if (earlier !== undefined) {
        problems.push(`message ${index}: duplicate tool_use id ${use.id} (first used in message ${earlier})`);
      } else seenToolUse.set(use.id, index);
    }
    problems.push(...unansweredCalls(messages, index), ...strayResults(messages, index));
  });
  return problems;
}

function unansweredCalls(messages: readonly MessageParam[], index: number): string[] {
  const message = messages[index];
  const uses = message ? toolUsesOf(message) : [];
  if (uses.length === 0) return [];
  const next = messages[index + 1];
  const answered = new Set(next ? toolResultsOf(next).map((result) => result.tool_use_id) : []);
  const missing = uses.map((use) => use.id).filter((id) => !answered.has(id));
  if (missing.length === 0) return [];
  const where = next ? `message ${index + 1} (${next.role})` : 'any message (the conversation ends)';
  return [`message ${index}: tool_use ${missing.join(', ')} has no tool_result in ${where}`];
}

function strayResults(messages: readonly MessageParam[], index: number): string[] {
  const message = messages[index];
  if (message?.role !== 'user' || typeof message.content === 'string') return [];
  const problems: string[] = [];
  const previous = messages[index - 1];
  const asked = new Set(previous ? toolUsesOf(previous).map((use) => use.id) : []);
  const answered = new Set<string>();
  let otherContentAt: number | undefined;
  message.content.forEach((block, position) => {
    if (block.type !== 'tool_result') {
      otherContentAt ??= position;
      return;
    }
    const id = block.tool_use_id;
    if (!asked.has(id)) {
      problems.push(`message ${index}: tool_result ${id} answers no tool_use of message ${index - 1}`);
    } else if (answered.has(id)) {
      problems.push(`message ${index}: tool_result ${id} answers the same tool_use twice`);
    }
    answered.add(id);
    if (otherContentAt !== undefined) {
      problems.push(
        `message ${index}: tool_result ${id} comes after other content (block ${otherContentAt})`,
      );
    }
  });
  return problems;
}
