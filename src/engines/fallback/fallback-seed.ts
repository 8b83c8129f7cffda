import { formatPrelude, readSessionSeed } from '../claude-code/session-history.js';
import type { EngineName } from '../engine.js';

/** Between the prelude and the task: says what happened, so the model neither restarts nor repeats. */
export function retryMarker(failedEngine: EngineName, failureClass: string): string {
  return `RETRY AFTER FAILURE: the previous attempt on ${failedEngine} stopped (${failureClass}). Continue the task below from where it stands; check the working tree before redoing anything.`;
}

/** The retry prompt: the prelude when there is one, the marker, then the original task text unchanged. */
export function fallbackRetryPrompt(input: {
  task: string;
  failedEngine: EngineName;
  failureClass: string;
  prelude?: string | undefined;
}): string {
  const marker = retryMarker(input.failedEngine, input.failureClass);
  const head = input.prelude?.trim() ? `${input.prelude.trim()}\n\n${marker}` : marker;
  return `${head}\n\n${input.task}`;
}

export interface SeededFallbackInput {
  /** Where the chain of attempts for this task started: only a Claude Code start has history to seed. */
  chainStartedOn: EngineName;
  failedEngine: EngineName;
  next: EngineName;
  failureClass: string;
  task: string;
  /** The failed Claude Code session, from its JSON output. */
  sessionId?: string | undefined;
  cwd: string;
  /** `~/.claude` by default. */
  claudeHome: string;
  flushDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Seed 003: the first prompt of the native engine after a Claude Code failure starts with the
 * failed session's context. Only when the chain started on claude-code and moves to the native
 * engine: a session id left over from an unrelated run never leaks into another chain.
 */
export async function seededFallbackPrompt(input: SeededFallbackInput): Promise<string> {
  const eligible =
    input.chainStartedOn === 'claude-code' &&
    input.failedEngine === 'claude-code' &&
    input.next === 'native' &&
    input.sessionId !== undefined;
  const seed = eligible
    ? await readSessionSeed({
        claudeHome: input.claudeHome,
        cwd: input.cwd,
        sessionId: input.sessionId as string,
        ...(input.flushDelayMs !== undefined ? { flushDelayMs: input.flushDelayMs } : {}),
        ...(input.sleep ? { sleep: input.sleep } : {}),
      })
    : undefined;
  return fallbackRetryPrompt({
    task: input.task,
    failedEngine: input.failedEngine,
    failureClass: input.failureClass,
    prelude: seed ? formatPrelude(seed) : undefined,
  });
}
