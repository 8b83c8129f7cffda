import type { Config } from '../../config/schema.js';
import type { ErrorClass } from '../../core/classify/policy.js';
import type { Log } from '../../core/logger.js';
import type { MessageParam } from '../../model/types.js';
import {
  addTotals,
  type EngineResult,
  type EngineTotals,
  type SessionEngine,
  type ThreadCarry,
} from '../engine.js';

/** Claude Code failures the native engine is a remedy for: its own limits, login or a stuck call. */
const FALLBACK_CLASSES: ReadonlySet<ErrorClass> = new Set([
  'rate_limit',
  'overloaded',
  'billing',
  'auth',
  'timeout',
]);

/** A fallback engine needs at least this much of the session's time left to be worth starting. */
export const MIN_FALLBACK_MS = 60_000;

/** Whether the native engine takes over: a Claude Code failure it remedies, with time and money left. */
export function fallsBackToNative(
  config: Config,
  engine: SessionEngine,
  result: EngineResult,
  elapsedMs: number,
): boolean {
  return (
    engine.name === 'claude-code' &&
    config.claude_code.fallback === 'native' &&
    result.stop === 'model_error' &&
    result.error !== undefined &&
    FALLBACK_CLASSES.has(result.error.errorClass) &&
    config.session.max_duration - elapsedMs >= MIN_FALLBACK_MS &&
    config.session.max_usd - result.totals.costUsd > 0
  );
}

/** The session's budgets minus what an earlier engine spent: a fallback continues, it does not start over. */
export function remainingBudget(config: Config, spent: EngineTotals, elapsedMs: number): Config {
  return {
    ...config,
    session: {
      ...config.session,
      max_duration: Math.max(config.session.max_duration - elapsedMs, 1_000),
      max_usd: config.session.max_usd - spent.costUsd,
      max_model_calls: Math.max(config.session.max_model_calls - spent.modelCalls, 1),
    },
  };
}

/** Claude Code's failed turn, as the native engine takes over from it. */
export interface FallbackEvent {
  failureClass: string;
  result: EngineResult;
  messages: readonly MessageParam[];
  model: string;
}

export interface FallbackOptions {
  /** The engine that works first: Claude Code. */
  primary: SessionEngine;
  config: Config;
  /** Time since the session started, for the budget left to the fallback. */
  elapsedMs: () => number;
  /** The native engine, with what the primary spent taken off the session's budgets. */
  fallback: (spent: EngineTotals) => Promise<SessionEngine>;
  /** Seed 003: the fallback's first message, the failed session's context before the task. */
  seed: (input: { failureClass: string; task: string; sessionId: string | undefined }) => Promise<string>;
  log: Log;
  /**
   * Told when the hand-over starts, with what Claude Code left: the ledger records it, and the
   * session keeps its result, transcript and model as evidence should the native engine never answer.
   */
  onFallback?: (failed: FallbackEvent) => void;
}

/**
 * Claude Code with the native engine behind it (seed 003): when the first turn fails for a reason the
 * native engine remedies, with time and money left, the native engine takes over in the same worktree,
 * seeded with the failed session's context, and every result from then on counts what both spent.
 */
export function createFallbackEngine(options: FallbackOptions): SessionEngine {
  const { primary, config, log } = options;
  let current = primary;
  /** What the primary spent before it was replaced. */
  let spentBefore: EngineTotals | undefined;
  let turns = 0;
  const withSpent = (result: EngineResult): EngineResult =>
    spentBefore ? { ...result, totals: addTotals(spentBefore, result.totals) } : result;

  const handOver = async (failed: EngineResult, task: string): Promise<EngineResult> => {
    const failureClass = failed.error?.errorClass ?? 'unknown';
    const sessionId = primary.sessionId?.();
    log.warn(
      { errorClass: failureClass },
      `failover: claude-code stopped (${failureClass}); the native engine continues with its session context`,
    );
    options.onFallback?.({
      failureClass,
      result: failed,
      messages: primary.messages(),
      model: primary.model(),
    });
    spentBefore = failed.totals;
    current = await options.fallback(failed.totals);
    const prompt = await options.seed({ failureClass, task, sessionId });
    return withSpent(await current.run(prompt));
  };

  return {
    get name() {
      return current.name;
    },
    async run(content) {
      turns += 1;
      const result = await current.run(content);
      // Only the first turn hands over: a verify fix-up continues on whichever engine did the work.
      if (
        turns === 1 &&
        current === primary &&
        fallsBackToNative(config, primary, result, options.elapsedMs())
      )
        return handOver(result, content);
      return withSpent(result);
    },
    messages: () => current.messages(),
    model: () => current.model(),
    hint: () => current.hint(),
    sessionId: () => current.sessionId?.(),
    async carry(): Promise<{ carry: ThreadCarry; result?: EngineResult }> {
      const next = await current.carry();
      return next.result ? { ...next, result: withSpent(next.result) } : next;
    },
  };
}
