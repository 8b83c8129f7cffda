import type { MessageParam } from '../../model/types.js';
import { toolResultsOf, toolUsesOf } from './content-blocks.js';
import { estimateTokens } from './estimate-tokens.js';

/**
 * Whether keeping `messages[i..]` (and dropping the rest) leaves every tool_use next to its
 * tool_result: the message before the cut makes no tool calls, and the first kept message answers
 * none. `i === messages.length` (keep nothing) is safe unless the conversation ends on tool calls
 * still waiting for their results; indexes outside `0..length` are not cuts.
 */
export function isSafeCut(messages: readonly MessageParam[], i: number): boolean {
  if (!Number.isInteger(i) || i < 0 || i > messages.length) return false;
  const before = messages[i - 1];
  const first = messages[i];
  if (before && toolUsesOf(before).length > 0) return false;
  return !(first && toolResultsOf(first).length > 0);
}

/**
 * Where the verbatim tail starts: the smallest safe `i ≥ 1` whose suffix fits in `keepTokens`
 * (estimated), i.e. the most recent turns that fit, kept whole. Index 0 is never chosen: the summary
 * must replace something, and the issue statement survives inside the summary message anyway.
 *
 * Edge cases, decided:
 * - When no non-empty suffix fits (say the last tool result alone is over budget), the answer is
 *   `messages.length`: keep nothing verbatim and let the summary carry everything. Keeping an
 *   over-budget exchange would defeat the compaction, above all after a context overflow.
 * - When keeping nothing is not safe either (the conversation ends on tool calls whose results the
 *   loop has yet to append), the answer is the largest safe index below the end: the shortest valid
 *   tail, over budget, because those calls must stay next to their coming results.
 * - When no safe index ≥ 1 exists at all (only in a malformed conversation), the answer is
 *   `messages.length`; `compactConversation` then reports the malformed result instead of sending it.
 * - A negative or NaN budget is treated as 0.
 */
export function chooseKeepFrom(messages: readonly MessageParam[], keepTokens: number): number {
  const budget = Number.isNaN(keepTokens) ? 0 : Math.max(0, keepTokens);
  const sizes = messages.map((message) => estimateTokens(message));
  // suffix[i] = estimate of messages.slice(i); the estimate is additive over messages.
  const suffix = new Array<number>(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] ?? 0) + (sizes[i] ?? 0);

  for (let i = 1; i <= messages.length; i++) {
    if ((suffix[i] ?? 0) <= budget && isSafeCut(messages, i)) return i;
  }
  for (let i = messages.length - 1; i >= 1; i--) {
    if (isSafeCut(messages, i)) return i;
  }
  return messages.length;
}
