import { totalTokens } from '../model/types.js';
import type { AgentStop, AgentTotals } from './events.js';

export interface AgentLimits {
  /** Model calls in one turn without the model finishing (seed 002: 25). */
  maxModelCallsPerTurn: number;
  maxModelCalls: number;
  maxTokens: number;
  maxUsd: number;
  maxDurationMs: number;
}

export const DEFAULT_LIMITS: Readonly<AgentLimits> = {
  maxModelCallsPerTurn: 25,
  maxModelCalls: 200,
  maxTokens: 10_000_000,
  maxUsd: 5,
  maxDurationMs: 45 * 60_000,
};

export interface LimitBreach {
  stop: AgentStop;
  reason: string;
}

/**
 * Checked before every model call: the first exceeded limit ends the run with its own stop, so a
 * report can tell "ran out of money" from "ran out of time". Pure, for the tests' sake.
 */
export function exceededLimit(
  totals: AgentTotals,
  turnCalls: number,
  limits: AgentLimits,
): LimitBreach | undefined {
  if (turnCalls >= limits.maxModelCallsPerTurn) {
    return {
      stop: 'turn_call_limit',
      reason: `${turnCalls} model calls in one turn without finishing (limit ${limits.maxModelCallsPerTurn})`,
    };
  }
  if (totals.modelCalls >= limits.maxModelCalls) {
    return {
      stop: 'model_call_limit',
      reason: `${totals.modelCalls} model calls in the session (limit ${limits.maxModelCalls})`,
    };
  }
  const tokens = totalTokens(totals.usage);
  if (tokens >= limits.maxTokens) {
    return { stop: 'token_limit', reason: `${tokens} tokens used (limit ${limits.maxTokens})` };
  }
  if (totals.costUsd >= limits.maxUsd) {
    return {
      stop: 'cost_limit',
      reason: `$${totals.costUsd.toFixed(4)} spent (limit $${limits.maxUsd.toFixed(2)})`,
    };
  }
  if (totals.durationMs >= limits.maxDurationMs) {
    return {
      stop: 'time_limit',
      reason: `${Math.round(totals.durationMs / 1000)} s elapsed (limit ${Math.round(limits.maxDurationMs / 1000)} s)`,
    };
  }
  return undefined;
}
