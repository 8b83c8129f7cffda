import type { Redactor } from '../core/redact.js';
import { telemetry } from '../core/telemetry.js';
import { GEN_AI, ISSUELOOP } from '../core/telemetry-names.js';
import type { ContentBlockParam, ToolResultBlockParam, ToolUseBlockParam } from '../model/types.js';
import type { AgentObserver } from './events.js';
import type { ToolOutput } from './tools/types.js';

export interface ToolRunner {
  run(name: string, input: unknown, signal: AbortSignal): Promise<ToolOutput>;
}

export const INTERRUPTED_RESULT = 'not run: the session was interrupted';

export function toolUses(content: readonly ContentBlockParam[]): ToolUseBlockParam[] {
  return content.filter((block): block is ToolUseBlockParam => block.type === 'tool_use');
}

/** Error results for calls that will not run, so each tool_use still has its tool_result. */
export function unrunResults(calls: readonly ToolUseBlockParam[], why: string): ToolResultBlockParam[] {
  return calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: why, is_error: true }));
}

async function runOne(call: ToolUseBlockParam, runner: ToolRunner, signal: AbortSignal): Promise<ToolOutput> {
  if (signal.aborted) return { content: INTERRUPTED_RESULT, isError: true };
  try {
    return await runner.run(call.name, call.input, signal);
  } catch (err) {
    return signal.aborted
      ? { content: INTERRUPTED_RESULT, isError: true }
      : { content: `tool failed: ${(err as Error).message}`, isError: true };
  }
}

/**
 * The tool's name and call id as telemetry may show them. Both come from the model's answer, which
 * could put any text there (what it read in a file, its instructions): only a name of the shape the
 * Messages API allows for a tool (and the call id's shape) goes into a span, anything else is `unknown`.
 */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const CALL_ID = /^[A-Za-z0-9_-]{1,128}$/;
export function toolTelemetry(call: Pick<ToolUseBlockParam, 'name' | 'id'>): { name: string; id: string } {
  return {
    name: TOOL_NAME.test(call.name) ? call.name : 'unknown',
    id: CALL_ID.test(call.id) ? call.id : 'unknown',
  };
}

export interface BatchResult {
  results: ToolResultBlockParam[];
  errors: number;
}

/**
 * Runs every tool call of one assistant message, in order (a later bash command may depend on an
 * earlier edit), and answers each — also when interrupted, so no tool_use is ever left without its
 * tool_result. All results go back in one user message (seed 002).
 */
export async function runToolBatch(
  calls: readonly ToolUseBlockParam[],
  runner: ToolRunner,
  context: {
    signal: AbortSignal;
    now: () => number;
    observer?: AgentObserver | undefined;
    redact?: Redactor | undefined;
  },
): Promise<BatchResult> {
  const results: ToolResultBlockParam[] = [];
  let errors = 0;
  for (const call of calls) {
    context.observer?.({ type: 'tool_call', id: call.id, name: call.name, input: call.input });
    const started = context.now();
    const shown = toolTelemetry(call);
    const output = await telemetry().span(
      `execute_tool ${shown.name}`,
      { [GEN_AI.operation]: 'execute_tool', [GEN_AI.toolName]: shown.name, [GEN_AI.toolCallId]: shown.id },
      async (span) => {
        const out = await runOne(call, runner, context.signal);
        // Whether it failed, never its output or input (file text, commands).
        span.set({ [ISSUELOOP.toolError]: out.isError });
        return out;
      },
    );
    const content = context.redact ? context.redact(output.content) : output.content;
    if (output.isError) errors++;
    context.observer?.({
      type: 'tool_result',
      id: call.id,
      name: call.name,
      isError: output.isError,
      chars: content.length,
      durationMs: context.now() - started,
    });
    results.push({
      type: 'tool_result',
      tool_use_id: call.id,
      content: content === '' ? '(no output)' : content,
      ...(output.isError ? { is_error: true } : {}),
    });
  }
  return { results, errors };
}
