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
  /** The session's tokens so far. */
  tokens: number;
  /** After a compaction: the summary the next task starts with. */
  summary?: string;
}

/**
 * The tasks of one group as one Claude Code conversation (`--resume`), with seed 000's compaction:
 * the session's tokens (input, cache writes and reads, output of every call, summed) are tracked;
 * past `threshold` of the context window the session is asked for a summary, and the next task
 * starts a fresh session with `CONTEXT FROM PREVIOUS SESSION: <summary>` then `NEXT TASK: <task>`.
 */
export function createClaudeCodeConversation(options: {
  run: (input: { prompt: string; resume?: string }) => Promise<ClaudeCodeResult>;
  threshold: number;
  /** When Claude Code does not report `modelUsage.<model>.contextWindow`. */
  contextWindow: number;
  log: Log;
  /** A task group's session, continued from its previous task. */
  start?: { sessionId?: string | undefined; tokens: number };
}): ClaudeCodeConversation {
  let sessionId: string | undefined = options.start?.sessionId;
  let sessionTokens = options.start?.sessionId ? options.start.tokens : 0;
  let carried: string | undefined;

  return {
    get sessionId() {
      return sessionId;
    },
    reset() {
      sessionId = undefined;
      sessionTokens = 0;
    },
    state() {
      return {
        ...(sessionId ? { sessionId } : {}),
        tokens: sessionTokens,
        ...(carried ? { summary: carried } : {}),
      };
    },
    async send(task) {
      const prompt = carried ? `CONTEXT FROM PREVIOUS SESSION:\n${carried}\n\nNEXT TASK: ${task}` : task;
      let result = await options.run({ prompt, ...(sessionId ? { resume: sessionId } : {}) });
      if (sessionId && !result.ok && MISSING_SESSION.test(result.text)) {
        // The session's file is not here (a CI runner without the earlier ~/.claude): not a failure of
        // the task, so it starts a fresh session rather than counting against it.
        options.log.warn(
          { sessionId },
          `claude-code: session ${sessionId} is not here; the task starts a fresh session`,
        );
        sessionId = undefined;
        sessionTokens = 0;
        result = await options.run({ prompt });
      }
      if (result.sessionId) sessionId = result.sessionId;
      // A failed turn keeps the summary for the retry, and the session for the seeded fallback.
      if (!result.ok) return { result };
      carried = undefined;
      const { input, cacheWrite, cacheRead, output } = result.usage;
      sessionTokens += input + cacheWrite + cacheRead + output;
      const window = result.contextWindow ?? options.contextWindow;
      if (sessionTokens <= options.threshold * window || !sessionId) return { result };

      const percent = Math.round((100 * sessionTokens) / window);
      const summary = await options.run({ prompt: COMPACTION_REQUEST, resume: sessionId });
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
      sessionId = undefined;
      sessionTokens = 0;
      return { result, compacted: { percent, summary: carried ?? '' } };
    },
  };
}
