import type { ClassifiedError } from '../core/classify/classify-error.js';
import type { ReliabilityEvent } from '../model/reliable-call.js';
import type { StopReason, TokenUsage } from '../model/types.js';

/** Why an agent run stopped. `end_turn` is the only one that means "the model says it is done". */
export const AGENT_STOPS = [
  'end_turn',
  'refusal',
  'turn_call_limit',
  'model_call_limit',
  'token_limit',
  'cost_limit',
  'time_limit',
  'context_overflow',
  'model_error',
  'aborted',
] as const;

export type AgentStop = (typeof AGENT_STOPS)[number];

export interface AgentTotals {
  modelCalls: number;
  toolCalls: number;
  toolErrors: number;
  compactions: number;
  usage: TokenUsage;
  costUsd: number;
  durationMs: number;
}

export type AgentEvent =
  | {
      type: 'model_call';
      call: number;
      turnCall: number;
      model: string;
      stopReason: StopReason | null;
      usage: TokenUsage;
      costUsd: number;
      contextTokens: number;
    }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; isError: boolean; chars: number; durationMs: number }
  | {
      type: 'compaction';
      trigger: 'threshold' | 'overflow';
      attempt: number;
      ok: boolean;
      beforeTokens: number;
      afterTokens?: number;
      reason?: string;
    }
  | ReliabilityEvent
  | {
      type: 'session_end';
      stop: AgentStop;
      reason: string;
      error?: ClassifiedError;
      totals: AgentTotals;
    };

export type AgentObserver = (event: AgentEvent) => void;
