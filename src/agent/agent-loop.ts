import {
  type ContentBlockParam,
  contextTokens,
  type MessageParam,
  type ModelResponse,
  ZERO_USAGE,
} from '../model/types.js';
import { shouldCompact } from './compaction/should-compact.js';
import { exceededLimit } from './limits.js';
import { compactNow } from './loop-compaction.js';
import {
  type Agent,
  type AgentOptions,
  type AgentResult,
  account,
  append,
  elapsed,
  emit,
  finish,
  type Loop,
  type Next,
  snapshot,
  type Turn,
} from './loop-state.js';
import { modelFailureOf } from './model-failure.js';
import { runToolBatch, toolUses, unrunResults } from './tool-batch.js';

export { MAX_COMPACTION_ATTEMPTS } from './loop-compaction.js';
export type { Agent, AgentOptions, AgentResult } from './loop-state.js';

/** What the model is told after its answer was cut off at `max_tokens`. */
export const CONTINUE_PROMPT =
  'Your previous response was cut off at the output limit. Continue exactly where it stopped.';
export const CUT_TOOL_CALL =
  'not run: your response was cut off at the output limit before this call was complete. Repeat it with less content.';

function textOf(content: readonly ContentBlockParam[]): string {
  return content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n')
    .trim();
}

/**
 * The agent loop: iterative, never recursive; the model call is a parameter. Runtime failures are
 * data — a failing tool is a tool result with `is_error`, a failing model call ends the run with a
 * stop and its classified error — so nothing is thrown across the loop but programming errors.
 */
export function createAgent(options: AgentOptions, initial: readonly MessageParam[] = []): Agent {
  const loop: Loop = {
    options,
    signal: options.signal ?? new AbortController().signal,
    startedAt: options.clock.now(),
    keepTokens: options.keepTokens ?? Math.floor(options.contextWindow / 5),
    messages: [...initial],
    totals: {
      modelCalls: 0,
      toolCalls: 0,
      toolErrors: 0,
      compactions: 0,
      usage: { ...ZERO_USAGE },
      costUsd: 0,
      durationMs: 0,
    },
  };
  return {
    run: (content) => runTurn(loop, content),
    messages: () => loop.messages,
    totals: () => snapshot(loop),
  };
}

/** Model and tools until the model ends its turn or a limit, a refusal, an error or an interrupt stops it. */
async function runTurn(loop: Loop, content: string | ContentBlockParam[]): Promise<AgentResult> {
  append(loop, { role: 'user', content });
  const turn: Turn = { calls: 0, compactions: 0, finalText: '' };
  for (;;) {
    if (loop.signal.aborted) return finish(loop, turn, 'aborted', 'interrupted');
    const breach = exceededLimit(elapsed(loop), turn.calls, loop.options.limits);
    if (breach) return finish(loop, turn, breach.stop, breach.reason);
    const next = turn.pendingCompaction ? await compactNow(loop, turn) : await callModel(loop, turn);
    if ('result' in next) return next.result;
    if ('calls' in next) await runTools(loop, next.calls);
  }
}

/** One model call, accounted and reported; a context overflow asks for a compaction instead. */
async function callModel(loop: Loop, turn: Turn): Promise<Next> {
  const { options } = loop;
  let response: ModelResponse;
  try {
    response = await options.callModel(
      {
        model: options.model,
        system: await options.system(),
        messages: loop.messages,
        tools: options.tools.definitions,
        maxTokens: options.maxOutputTokens,
      },
      loop.signal,
    );
  } catch (err) {
    const failure = modelFailureOf(err, options.clock.now());
    if (loop.signal.aborted || failure.errorClass === 'aborted')
      return { result: finish(loop, turn, 'aborted', 'interrupted') };
    if (failure.errorClass === 'context_overflow') {
      turn.pendingCompaction = { trigger: 'overflow', context: options.contextWindow };
      return { again: true };
    }
    return {
      result: finish(loop, turn, 'model_error', `${failure.errorClass}: ${failure.message}`, failure),
    };
  }
  turn.calls += 1;
  loop.totals.modelCalls += 1;
  account(loop, response.usage, response.costUsd);
  const context = contextTokens(response.usage);
  emit(loop, {
    type: 'model_call',
    call: loop.totals.modelCalls,
    turnCall: turn.calls,
    model: response.model,
    stopReason: response.stopReason,
    usage: response.usage,
    costUsd: response.costUsd,
    contextTokens: context,
  });
  if (response.stopReason === 'model_context_window_exceeded') {
    // The answer was cut by the window itself: dropped, the conversation compacted and asked again.
    // This counts towards the compactions in a row, whatever the usage says.
    turn.pendingCompaction = { trigger: 'overflow', context };
    return { again: true };
  }
  if (shouldCompact(context, options.contextWindow, options.compactionThreshold)) {
    turn.pendingCompaction = { trigger: 'threshold', context };
  } else {
    turn.compactions = 0;
  }
  return onStopReason(loop, turn, response);
}

/** What the model's answer means for the turn: its stop reason decides, the tool calls follow. */
function onStopReason(loop: Loop, turn: Turn, response: ModelResponse): Next {
  const assistant = response.content;
  if (assistant.length > 0) append(loop, { role: 'assistant', content: assistant });
  const text = textOf(assistant);
  if (text !== '') turn.finalText = text;
  const calls = toolUses(assistant);
  switch (response.stopReason) {
    case 'refusal':
      return {
        result: finish(
          loop,
          turn,
          'refusal',
          text === '' ? 'the model refused to continue' : `the model refused: ${text.slice(0, 300)}`,
        ),
      };
    case 'pause_turn':
      // The API paused a long turn; sending the conversation back as it is lets the model resume.
      // Client tool calls in a paused answer still need their results first.
      if (calls.length > 0) return { calls };
      if (assistant.length === 0) append(loop, { role: 'user', content: CONTINUE_PROMPT });
      return { again: true };
    case 'max_tokens':
      // A call cut off mid-input cannot be trusted: each is answered, none is run.
      append(loop, {
        role: 'user',
        content: calls.length > 0 ? unrunResults(calls, CUT_TOOL_CALL) : CONTINUE_PROMPT,
      });
      return { again: true };
    case 'tool_use':
      if (calls.length === 0)
        return {
          result: finish(loop, turn, 'end_turn', 'the model stopped for tool use without a tool call'),
        };
      return { calls };
    default:
      // end_turn, stop_sequence, or no reason at all: the model considers its turn done.
      if (calls.length > 0)
        append(loop, { role: 'user', content: unrunResults(calls, 'not run: the turn ended') });
      return { result: finish(loop, turn, 'end_turn', 'the model ended its turn') };
  }
}

/** The answer's tool calls, run as one batch; their results are the next user message. */
async function runTools(loop: Loop, calls: ReturnType<typeof toolUses>): Promise<void> {
  const { options } = loop;
  const batch = await runToolBatch(calls, options.tools, {
    signal: loop.signal,
    now: () => options.clock.now(),
    observer: options.observer,
    redact: options.redact,
  });
  loop.totals.toolCalls += calls.length;
  loop.totals.toolErrors += batch.errors;
  append(loop, { role: 'user', content: batch.results });
}
