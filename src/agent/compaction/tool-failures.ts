import type { MessageParam, ToolUseBlockParam } from '../../model/types.js';
import { clip, oneLine } from './clip.js';
import { compactJson, toolResultsOf, toolResultText, toolUsesOf } from './content-blocks.js';

/** A tool call that failed (`is_error: true`), named so that the next session does not repeat it blindly. */
export interface ToolFailure {
  toolUseId: string;
  /** The tool's name, or `unknown tool` when no call with that id is in the messages. */
  tool: string;
  /** What was asked: the bash command, the editor command and path, else the input as JSON. */
  input: string;
  /** The error the tool returned, on one line. */
  error: string;
  /** Index of the user message holding the result. */
  messageIndex: number;
}

export interface ToolFailureOptions {
  /** The newest `max` failures are kept. */
  max?: number;
  /** Cap on each of `input` and `error` (before the "more chars" marker). */
  maxChars?: number;
}

export const DEFAULT_MAX_FAILURES = 8;

export function extractToolFailures(
  messages: readonly MessageParam[],
  options: ToolFailureOptions = {},
): ToolFailure[] {
  const max = Math.max(0, options.max ?? DEFAULT_MAX_FAILURES);
  const maxChars = options.maxChars ?? 300;
  const calls = new Map<string, ToolUseBlockParam>();
  const failures: ToolFailure[] = [];
  messages.forEach((message, messageIndex) => {
    for (const use of toolUsesOf(message)) calls.set(use.id, use);
    for (const result of toolResultsOf(message)) {
      if (result.is_error !== true) continue;
      const call = calls.get(result.tool_use_id);
      failures.push({
        toolUseId: result.tool_use_id,
        tool: call?.name ?? 'unknown tool',
        input: call ? clip(oneLine(summariseInput(call.input)), maxChars) : '',
        error: clip(oneLine(toolResultText(result)), maxChars),
        messageIndex,
      });
    }
  });
  return max === 0 ? [] : failures.slice(-max);
}

/**
 * The part of a tool input a person would quote: bash's `command`, the editor's `command path`
 * (`str_replace src/a.ts`), a lone `path`; anything else as JSON.
 */
export function summariseInput(input: unknown): string {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const fields = input as Record<string, unknown>;
    const command = typeof fields.command === 'string' ? fields.command : undefined;
    const path = typeof fields.path === 'string' ? fields.path : undefined;
    if (command !== undefined && path !== undefined) return `${command} ${path}`;
    if (command !== undefined) return command;
    if (path !== undefined) return path;
  }
  return compactJson(input);
}
