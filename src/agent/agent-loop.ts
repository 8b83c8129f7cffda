import type { ClassifiedError } from '../core/classify/classify-error.js';
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import {
  addUsage,
  type CallModel,
  type ContentBlockParam,
  contextTokens,
  type MessageParam,
  type ModelResponse,
  type ToolDefinition,
  ZERO_USAGE,
} from '../model/types.js';
import { compactConversation } from './compaction/compact.js';
import { estimateTokens } from './compaction/estimate-tokens.js';
import { compactionPercent, shouldCompact } from './compaction/should-compact.js';
import type { AgentObserver, AgentStop, AgentTotals } from './events.js';
import { type AgentLimits, exceededLimit } from './limits.js';
import { modelFailureOf } from './model-failure.js';
import { runToolBatch, type ToolRunner, toolUses, unrunResults } from './tool-batch.js';
import type { FileOperations } from './tools/types.js';

/** Seed 002: if the context still overflows after two compactions, something is fundamentally wrong. */
export const MAX_COMPACTION_ATTEMPTS = 2;
/** What the model is told after its answer was cut off at `max_tokens`. */
export const CONTINUE_PROMPT =
  'Your previous response was cut off at the output limit. Continue exactly where it stopped.';
export const CUT_TOOL_CALL =
  'not run: your response was cut off at the output limit before this call was complete. Repeat it with less content.';

export interface AgentOptions {
  /** The model call, with retries and failover already around it (createReliableCall). */
  callModel: CallModel;
  /** Asked for; the failover chain inside callModel may answer with another. */
  model: string;
  /** Built before every model call, so identity files are re-read each time (seed 002). */
  system: () => Promise<readonly string[]>;
  tools: ToolRunner & { definitions: readonly ToolDefinition[] };
  /** Files read and changed so far, for the compaction summary. */
  files?: () => FileOperations;
  limits: AgentLimits;
  contextWindow: number;
  /** Fraction of the window at which the conversation is compacted (0.8). */
  compactionThreshold: number;
  maxOutputTokens: number;
  /** Tokens of recent turns kept verbatim by a compaction (default a fifth of the window). */
  keepTokens?: number;
  clock: Pick<Clock, 'now'>;
  observer?: AgentObserver;
  log?: Log;
  /** Applied to tool output before the model sees it. */
  redact?: Redactor;
  signal?: AbortSignal;
}

export interface AgentResult {
  stop: AgentStop;
  reason: string;
  /** The classified failure behind `model_error` and `context_overflow` stops. */
  error?: ClassifiedError;
  /** The text of the last assistant message. */
  finalText: string;
  totals: AgentTotals;
}

export interface Agent {
  /** One turn: the user's content in, model and tools until the model ends its turn or a limit stops it. */
  run(content: string | ContentBlockParam[]): Promise<AgentResult>;
  messages(): readonly MessageParam[];
  totals(): AgentTotals;
}

const EMPTY_FILES: FileOperations = { read: [], created: [], modified: [] };

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
  const startedAt = options.clock.now();
  const signal = options.signal ?? new AbortController().signal;
  const keepTokens = options.keepTokens ?? Math.floor(options.contextWindow / 5);
  let messages: MessageParam[] = [...initial];
  const totals: AgentTotals = {
    modelCalls: 0,
    toolCalls: 0,
    toolErrors: 0,
    compactions: 0,
    usage: { ...ZERO_USAGE },
    costUsd: 0,
    durationMs: 0,
  };
  const elapsed = () => {
    totals.durationMs = options.clock.now() - startedAt;
    return totals;
  };
  const snapshot = (): AgentTotals => ({ ...elapsed(), usage: { ...totals.usage } });
  const emit: AgentObserver = (event) => options.observer?.(event);

  const append = (message: MessageParam) => {
    const last = messages.at(-1);
    if (last && last.role === message.role && message.role === 'user') {
      // Two user messages in a row (a new turn after tool results): one message, as the API prefers.
      const blocks = (m: MessageParam): ContentBlockParam[] =>
        typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [...m.content];
      messages[messages.length - 1] = { role: 'user', content: [...blocks(last), ...blocks(message)] };
      return;
    }
    messages.push(message);
  };

  const account = (usage: ModelResponse['usage'], costUsd: number) => {
    totals.usage = addUsage(totals.usage, usage);
    totals.costUsd += costUsd;
  };

  /** Returns a failure reason, or undefined when the conversation was compacted. */
  const compact = async (trigger: 'threshold' | 'overflow', attempt: number, context: number) => {
    if (attempt > MAX_COMPACTION_ATTEMPTS) {
      return `context still over the limit after ${MAX_COMPACTION_ATTEMPTS} compactions`;
    }
    const result = await compactConversation({
      messages,
      callModel: options.callModel,
      model: options.model,
      maxTokens: options.maxOutputTokens,
      files: options.files?.() ?? EMPTY_FILES,
      // Never keep more than half of what is there: the estimate can be far below the API's count.
      keepTokens: Math.min(keepTokens, Math.floor(estimateTokens(messages) / 2)),
      signal,
    });
    if (result.usage) {
      account(result.usage, result.costUsd ?? 0);
      totals.modelCalls += 1;
    }
    if (!result.ok) {
      emit({ type: 'compaction', trigger, attempt, ok: false, beforeTokens: context, reason: result.reason });
      return `compaction failed: ${result.reason}`;
    }
    messages = result.messages;
    totals.compactions += 1;
    emit({
      type: 'compaction',
      trigger,
      attempt,
      ok: true,
      beforeTokens: context,
      afterTokens: result.afterTokens,
    });
    options.log?.info(
      { trigger, beforeTokens: context, afterTokens: result.afterTokens },
      `compaction: context at ${compactionPercent(context, options.contextWindow)}%, starting fresh session with summary`,
    );
    return undefined;
  };

  const run = async (content: string | ContentBlockParam[]): Promise<AgentResult> => {
    append({ role: 'user', content });
    let turnCalls = 0;
    let compactions = 0;
    let pendingCompaction: { trigger: 'threshold' | 'overflow'; context: number } | undefined;
    let finalText = '';

    const finish = (stop: AgentStop, reason: string, error?: ClassifiedError): AgentResult => {
      const result: AgentResult = {
        stop,
        reason,
        finalText,
        totals: snapshot(),
        ...(error ? { error } : {}),
      };
      emit({ type: 'session_end', stop, reason, totals: result.totals, ...(error ? { error } : {}) });
      return result;
    };

    for (;;) {
      if (signal.aborted) return finish('aborted', 'interrupted');
      const breach = exceededLimit(elapsed(), turnCalls, options.limits);
      if (breach) return finish(breach.stop, breach.reason);
      if (pendingCompaction) {
        compactions += 1;
        let problem: string | undefined;
        try {
          problem = await compact(pendingCompaction.trigger, compactions, pendingCompaction.context);
        } catch (err) {
          if (signal.aborted) return finish('aborted', 'interrupted');
          throw err;
        }
        if (problem) return finish('context_overflow', problem);
        pendingCompaction = undefined;
        continue;
      }

      let response: ModelResponse;
      try {
        response = await options.callModel(
          {
            model: options.model,
            system: await options.system(),
            messages,
            tools: options.tools.definitions,
            maxTokens: options.maxOutputTokens,
          },
          signal,
        );
      } catch (err) {
        const failure = modelFailureOf(err, options.clock.now());
        if (signal.aborted || failure.errorClass === 'aborted') return finish('aborted', 'interrupted');
        if (failure.errorClass === 'context_overflow') {
          pendingCompaction = { trigger: 'overflow', context: options.contextWindow };
          continue;
        }
        return finish('model_error', `${failure.errorClass}: ${failure.message}`, failure);
      }

      turnCalls += 1;
      totals.modelCalls += 1;
      account(response.usage, response.costUsd);
      const context = contextTokens(response.usage);
      emit({
        type: 'model_call',
        call: totals.modelCalls,
        turnCall: turnCalls,
        model: response.model,
        stopReason: response.stopReason,
        usage: response.usage,
        costUsd: response.costUsd,
        contextTokens: context,
      });
      const assistant = response.content;
      if (response.stopReason === 'model_context_window_exceeded') {
        // The answer was cut by the window itself: dropped, the conversation compacted and asked again.
        // This counts towards the compactions in a row, whatever the usage says.
        pendingCompaction = { trigger: 'overflow', context };
        continue;
      }
      if (shouldCompact(context, options.contextWindow, options.compactionThreshold)) {
        pendingCompaction = { trigger: 'threshold', context };
      } else {
        compactions = 0;
      }
      if (assistant.length > 0) append({ role: 'assistant', content: assistant });
      const text = textOf(assistant);
      if (text !== '') finalText = text;
      const calls = toolUses(assistant);

      switch (response.stopReason) {
        case 'refusal':
          return finish(
            'refusal',
            text === '' ? 'the model refused to continue' : `the model refused: ${text.slice(0, 300)}`,
          );
        case 'pause_turn':
          // The API paused a long turn; sending the conversation back as it is lets the model resume.
          // Client tool calls in a paused answer still need their results first.
          if (calls.length > 0) break;
          if (assistant.length === 0) append({ role: 'user', content: CONTINUE_PROMPT });
          continue;
        case 'max_tokens': {
          if (calls.length > 0) {
            // A call cut off mid-input cannot be trusted: each is answered, none is run.
            append({ role: 'user', content: unrunResults(calls, CUT_TOOL_CALL) });
          } else {
            append({ role: 'user', content: CONTINUE_PROMPT });
          }
          continue;
        }
        case 'tool_use':
          if (calls.length === 0)
            return finish('end_turn', 'the model stopped for tool use without a tool call');
          break;
        default:
          // end_turn, stop_sequence, or no reason at all: the model considers its turn done.
          if (calls.length > 0)
            append({ role: 'user', content: unrunResults(calls, 'not run: the turn ended') });
          return finish('end_turn', 'the model ended its turn');
      }
      const batch = await runToolBatch(calls, options.tools, {
        signal,
        now: () => options.clock.now(),
        observer: options.observer,
        redact: options.redact,
      });
      totals.toolCalls += calls.length;
      totals.toolErrors += batch.errors;
      append({ role: 'user', content: batch.results });
    }
  };

  return { run, messages: () => messages, totals: () => snapshot() };
}
