import type { ClassifiedError } from '../core/classify/classify-error.js';
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import type { CallModel, ToolDefinition } from '../model/types.js';
import { addUsage, type ContentBlockParam, type MessageParam, type ModelResponse } from '../model/types.js';
import type { AgentObserver, AgentStop, AgentTotals } from './events.js';
import type { AgentLimits } from './limits.js';
import type { ToolRunner, toolUses } from './tool-batch.js';
import type { FileOperations } from './tools/types.js';

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

/** The conversation and what it has cost, across the agent's turns. */
export interface Loop {
  options: AgentOptions;
  signal: AbortSignal;
  startedAt: number;
  keepTokens: number;
  messages: MessageParam[];
  totals: AgentTotals;
}

/** One turn: from the user's content to the end of the model's turn or a stop. */
export interface Turn {
  /** Model calls in this turn, for the per-turn limit. */
  calls: number;
  /** Compactions in a row. */
  compactions: number;
  pendingCompaction?: { trigger: 'threshold' | 'overflow'; context: number } | undefined;
  finalText: string;
}

/** What a step of the loop decided: the turn is over, go round again, or run these tool calls. */
export type Next = { result: AgentResult } | { again: true } | { calls: ReturnType<typeof toolUses> };

export function elapsed(loop: Loop): AgentTotals {
  loop.totals.durationMs = loop.options.clock.now() - loop.startedAt;
  return loop.totals;
}

export function snapshot(loop: Loop): AgentTotals {
  return { ...elapsed(loop), usage: { ...loop.totals.usage } };
}

export function emit(loop: Loop, event: Parameters<AgentObserver>[0]): void {
  loop.options.observer?.(event);
}

export function finish(
  loop: Loop,
  turn: Turn,
  stop: AgentStop,
  reason: string,
  error?: ClassifiedError,
): AgentResult {
  const result: AgentResult = {
    stop,
    reason,
    finalText: turn.finalText,
    totals: snapshot(loop),
    ...(error ? { error } : {}),
  };
  emit(loop, { type: 'session_end', stop, reason, totals: result.totals, ...(error ? { error } : {}) });
  return result;
}

export function append(loop: Loop, message: MessageParam): void {
  const { messages } = loop;
  const last = messages.at(-1);
  if (last && last.role === message.role && message.role === 'user') {
    // Two user messages in a row (a new turn after tool results): one message, as the API prefers.
    const blocks = (m: MessageParam): ContentBlockParam[] =>
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [...m.content];
    messages[messages.length - 1] = { role: 'user', content: [...blocks(last), ...blocks(message)] };
    return;
  }
  messages.push(message);
}

export function account(loop: Loop, usage: ModelResponse['usage'], costUsd: number): void {
  loop.totals.usage = addUsage(loop.totals.usage, usage);
  loop.totals.costUsd += costUsd;
}
