import { randomUUID } from 'node:crypto';
import type { Log } from '../../core/logger.js';
import { COMPACTION_REQUEST } from '../engine.js';
import type { ClaudeCodeResult } from './claude-code-run.js';

/** What the CLI says when asked to resume a session whose file it does not have. */
const MISSING_SESSION = /No conversation found with session ID/i;

export interface ConversationTurn {
  result: ClaudeCodeResult;
  /** Set when this turn pushed the session past the threshold and the next task starts fresh. */
  compacted?: { percent: number; summary: string };
}

export interface ClaudeCodeConversation {
  /** The session a failed turn ran in (for the seeded fallback), or the one the next turn resumes. */
  readonly sessionId: string | undefined;
  send(task: string): Promise<ConversationTurn>;
  /** Forget the session (after an interrupt: the old one may be inconsistent). */
  reset(): void;
  /** Where the conversation stands, for the next task of the group. */
  state(): ConversationState;
}

export interface ConversationState {
  /** The session the next task resumes; absent after a compaction. */
  sessionId?: string;
  /** The conversation's size: its newest request's tokens. */
  tokens: number;
  /** The session's running cost as the CLI counts it (a resumed call's total includes it). */
  costUsd: number;
  /** After a compaction: the summary the next task starts with. */
  summary?: string;
}

/** What one call is given: the prompt, its session, and the session's cost before it. */
export interface ConversationCall {
  prompt: string;
  /** A new session under an id chosen here (`--session-id`), or the one continued (`--resume`). */
  session: { id: string; resume: boolean };
  previousCostUsd: number;
}

/**
 * The tasks of one group as one Claude Code conversation (`--resume`), with seed 000's compaction:
 * the conversation's size is its newest request's tokens (a call's summed usage re-reads the context
 * at every request, so it is not); past `threshold` of the context window the session is asked for a
 * summary, and the next task starts a fresh session with `CONTEXT FROM PREVIOUS SESSION: <summary>`
 * then `NEXT TASK: <task>`. A fresh session's id is chosen before the call, so a call killed before
 * it printed anything still names its session file (for the seeded fallback).
 */
export function createClaudeCodeConversation(options: {
  run: (input: ConversationCall) => Promise<ClaudeCodeResult>;
  threshold: number;
  /** When Claude Code does not report `modelUsage.<model>.contextWindow`. */
  contextWindow: number;
  log: Log;
  /** A task group's session, continued from its previous task. */
  start?: { sessionId?: string | undefined; tokens: number; costUsd?: number | undefined };
  /** Session ids for fresh sessions (tests pin them). */
  newId?: () => string;
}): ClaudeCodeConversation {
  const newId = options.newId ?? randomUUID;
  let sessionId: string | undefined = options.start?.sessionId;
  let sessionTokens = options.start?.sessionId ? options.start.tokens : 0;
  let sessionCost = options.start?.sessionId ? (options.start.costUsd ?? 0) : 0;
  let carried: string | undefined;
  const fresh = () => {
    sessionId = undefined;
    sessionTokens = 0;
    sessionCost = 0;
  };
  const call = async (prompt: string) => {
    // The session already written to is continued; otherwise a new one gets its id here.
    const resume = sessionId !== undefined;
    const id = sessionId ?? newId();
    sessionId = id;
    const result = await options.run({ prompt, session: { id, resume }, previousCostUsd: sessionCost });
    sessionCost = result.sessionCostUsd;
    return { result, resumed: resume };
  };

  return {
    get sessionId() {
      return sessionId;
    },
    reset: fresh,
    state() {
      return {
        ...(sessionId ? { sessionId } : {}),
        tokens: sessionTokens,
        costUsd: sessionCost,
        ...(carried ? { summary: carried } : {}),
      };
    },
    async send(task) {
      const prompt = carried ? `CONTEXT FROM PREVIOUS SESSION:\n${carried}\n\nNEXT TASK: ${task}` : task;
      let { result, resumed } = await call(prompt);
      if (resumed && !result.ok && MISSING_SESSION.test(result.text)) {
        // The session's file is not here (a CI runner without the earlier ~/.claude): not a failure of
        // the task, so it starts a fresh session rather than counting against it.
        options.log.warn(
          { sessionId },
          `claude-code: session ${sessionId} is not here; the task starts a fresh session`,
        );
        fresh();
        ({ result } = await call(prompt));
      }
      if (result.sessionId) sessionId = result.sessionId;
      // A failed turn keeps the summary for the retry, and the session for the seeded fallback.
      if (!result.ok) return { result };
      carried = undefined;
      sessionTokens = result.contextTokens;
      const window = result.contextWindow ?? options.contextWindow;
      if (sessionTokens <= options.threshold * window || !sessionId) return { result };

      const percent = Math.round((100 * sessionTokens) / window);
      const { result: summary } = await call(COMPACTION_REQUEST);
      if (summary.ok && summary.text.trim()) {
        carried = summary.text.trim();
        options.log.info(
          { percent },
          `compaction: context at ${percent}%, starting fresh session with summary`,
        );
      } else {
        options.log.warn(
          { percent, errorClass: summary.ok ? undefined : summary.error.errorClass },
          `compaction: context at ${percent}%, the summary failed; starting fresh session without one`,
        );
      }
      fresh();
      return { result, compacted: { percent, summary: carried ?? '' } };
    },
  };
}
