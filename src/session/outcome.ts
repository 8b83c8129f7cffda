import type { AgentStop } from '../agent/events.js';
import type { ClassifiedError } from '../core/classify/classify-error.js';
import type { ErrorClass } from '../core/classify/policy.js';

export type Outcome =
  | 'resolved'
  | 'no_changes'
  | 'verify_failed'
  | 'budget_exceeded'
  | 'refused'
  | 'interrupted'
  /** A plan session posted its plan: the issue waits for a maintainer's answer. */
  | 'plan_review'
  /** One of several attempts at an issue whose work the judge did not deliver (judge-attempts.ts). */
  | 'not_chosen'
  | `error:${ErrorClass}`;

/** Outcomes that are not failures of the issue: it was done, its plan waits, or the run was stopped. */
export function isFailure(outcome: Outcome): boolean {
  return outcome !== 'resolved' && outcome !== 'interrupted' && outcome !== 'plan_review';
}

/** The failure class recorded with the claim (`verify_failed`, `rate_limit`, …). */
export function failureClassOf(outcome: Outcome): string {
  return outcome.startsWith('error:') ? outcome.slice('error:'.length) : outcome;
}

/**
 * The outcome an agent stop decides by itself; undefined for `end_turn`, after which the harness
 * validates the work (diff, verify, PR) before anything is called resolved.
 */
export function outcomeOfStop(stop: AgentStop, error?: ClassifiedError): Outcome | undefined {
  switch (stop) {
    case 'end_turn':
      return undefined;
    case 'refusal':
      return 'refused';
    case 'aborted':
      return 'interrupted';
    case 'turn_call_limit':
    case 'model_call_limit':
    case 'token_limit':
    case 'cost_limit':
    case 'time_limit':
      return 'budget_exceeded';
    case 'context_overflow':
      return 'error:context_overflow';
    case 'model_error':
      return `error:${error?.errorClass ?? 'unknown'}`;
  }
}

export interface Productivity {
  score: number;
  warning?: string;
}

/**
 * Seed 004 task 7: `(files_changed × 2 + prs_opened × 5) / max(tool_calls, 1)`, with a warning when a
 * session made many tool calls for nothing.
 */
export function productivity(filesChanged: number, prsOpened: number, toolCalls: number): Productivity {
  const score = (filesChanged * 2 + prsOpened * 5) / Math.max(toolCalls, 1);
  if (toolCalls >= 30 && score < 0.1) {
    return { score, warning: `low productivity: ${toolCalls} tool calls, ${filesChanged} files changed` };
  }
  return { score };
}
