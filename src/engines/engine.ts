import type { AgentResult } from '../agent/agent-loop.js';
import type { AgentTotals } from '../agent/events.js';
import { addUsage, type MessageParam, ZERO_USAGE } from '../model/types.js';

/**
 * Seed 000 feature 5, step 1: what a group's conversation is asked, on either engine, before it passes
 * the compaction threshold and is left behind for a summary.
 */
export const COMPACTION_REQUEST =
  'Summarize the work completed so far — files created/modified, key decisions, current state. Be specific about file paths and function names.';

/** The engines a task or issue can run on. */
export type EngineName = 'native' | 'claude-code';

/** How one engine call ended: the stop, its reason and evidence, and what the session spent so far. */
export type EngineResult = AgentResult;

/** What a session spent: calls, tokens, dollars, time. Both engines count the same way. */
export type EngineTotals = AgentTotals;

/**
 * A task group's conversation between its tasks (seed 000 feature 5): the next task continues it, or,
 * once it passed the compaction threshold, starts fresh from its summary.
 */
export interface ThreadCarry {
  engine: EngineName;
  /** Claude Code's session, which the next task resumes (`--resume`). */
  sessionId?: string;
  /** Claude Code's running cost for that session, from which the next call's own cost is told. */
  sessionCostUsd?: number;
  /** The conversation's size in tokens, as the engine measured it (Claude Code: its newest request). */
  tokens: number;
  /** Past the threshold: what the next task is told, as `CONTEXT FROM PREVIOUS SESSION`. */
  summary?: string;
  /** The native engine's conversation, kept in memory for the run. */
  messages?: readonly MessageParam[];
}

/**
 * Who works a session: the native agent loop (the Anthropic API), Claude Code's CLI, or Claude Code
 * with the native engine as its fallback. The session code (worktree, verify and its fix-up turns,
 * commit, publish, outcomes) is the same for all of them.
 */
export interface SessionEngine {
  readonly name: EngineName;
  /** One turn: the first message, or a verify fix-up. The result's totals cover the whole session. */
  run(content: string): Promise<EngineResult>;
  /** The conversation so far, for an interrupted attempt's partial context. */
  messages(): readonly MessageParam[];
  /** The model in use, for the report. */
  model(): string;
  /** A diagnosis hint for the next attempt, when the engine has one. */
  hint(): string | undefined;
  /** Claude Code's session id, for the seeded fallback and the task's state. */
  sessionId?(): string | undefined;
  /**
   * Where the conversation stands after a completed task, for the next task of its group. Past the
   * compaction threshold the engine is asked for a summary first (seed 000 feature 5); that turn's
   * result comes back too, so its cost is counted.
   */
  carry(): Promise<{ carry: ThreadCarry; result?: EngineResult }>;
}

export const ZERO_TOTALS: EngineTotals = {
  modelCalls: 0,
  toolCalls: 0,
  toolErrors: 0,
  compactions: 0,
  usage: ZERO_USAGE,
  costUsd: 0,
  durationMs: 0,
};

export function addTotals(a: EngineTotals, b: EngineTotals): EngineTotals {
  return {
    modelCalls: a.modelCalls + b.modelCalls,
    toolCalls: a.toolCalls + b.toolCalls,
    toolErrors: a.toolErrors + b.toolErrors,
    compactions: a.compactions + b.compactions,
    usage: addUsage(a.usage, b.usage),
    costUsd: a.costUsd + b.costUsd,
    durationMs: a.durationMs + b.durationMs,
  };
}
