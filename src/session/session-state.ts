import { join } from 'node:path';
import { renderTranscript } from '../agent/compaction/transcript.js';
import type { AgentEvent, AgentObserver } from '../agent/events.js';
import { scrubEnv } from '../agent/tools/scrub-env.js';
import { cleanBlocked } from '../core/destination-text.js';
import type { Log } from '../core/logger.js';
import type { EngineResult, SessionEngine } from '../engines/engine.js';
import type { MessageParam } from '../model/types.js';
import { totalTokens, ZERO_USAGE } from '../model/types.js';
import { agentGitDirPath, type WorktreeSandboxes } from '../sandbox/sandbox-host.js';
import type { GitOptions } from './git/index.js';
import { eventFields } from './ledger-fields.js';
import { type Outcome, productivity } from './outcome.js';
import { PARTIAL_CONTEXT_CHARS, type SessionInput, type SessionReport } from './session-report.js';
import type { VerifyResult } from './verify.js';

/**
 * What one session knows as it goes, shared by its steps (worktree, engine, validation, delivery,
 * clean-up) instead of through closures: the evidence the report is built from.
 */
export interface SessionState {
  readonly input: SessionInput;
  readonly log: Log;
  readonly started: number;
  /** The agent's private git dir, removed after the session. */
  readonly agentGitDir: string;
  /** The environment without a credential: what the harness's git and the sandboxes see. */
  readonly scrubbed: Readonly<Record<string, string>>;
  readonly git: GitOptions;
  /** The worktree's path; its real path once it is made. */
  worktree: string;
  model: string;
  /** Every model that answered, in order of first use. */
  models: string[];
  result?: EngineResult;
  messages: readonly MessageParam[];
  filesChanged: string[];
  verify?: VerifyResult;
  verifyRuns: number;
  /** A failed attempt's worktree is kept when `session.keep_worktrees` is set. */
  keep: boolean;
  engine?: SessionEngine;
  /** Where the branch started once the worktree has it; an attempt that delivers nothing leaves it there. */
  startedAt?: string;
  delivered: boolean;
  /** Claude Code's throwaway configuration, removed with the worktree. */
  scratch?: string;
  /** Stops what the engine keeps running (Claude Code's model proxy): at clean-up. */
  closeEngine?: () => Promise<void>;
  /** The session's sandboxes once the worktree is guarded: closed at clean-up, asked what they refused. */
  sandboxes?: WorktreeSandboxes;
  /** Appends to the ledger; appends never reject (see Ledger), so nothing waits for them. */
  remember(type: string, fields: Record<string, unknown>): void;
  observer: AgentObserver;
  /** One engine turn; its result becomes the session's evidence. */
  turn(content: string): Promise<EngineResult>;
  report(outcome: Outcome, reason: string, extra?: Partial<SessionReport>): SessionReport;
}

function partialContextOf(messages: Parameters<typeof renderTranscript>[0]): string {
  return renderTranscript(messages.slice(-6), { maxChars: 4_000 }).slice(-PARTIAL_CONTEXT_CHARS).trim();
}

export function createSessionState(input: SessionInput): SessionState {
  const { config, deps, work } = input;
  // The harness's git sees no credential either: a push gets its token from the remote's own env.
  const scrubbed = scrubEnv(input.env, config.redact_env);
  const remember = (type: string, fields: Record<string, unknown>) => {
    void input.ledger?.append(type, { issue: work.key, attempt: input.attempt, ...fields });
  };
  const state: SessionState = {
    input,
    log: deps.log.child({ ...(work.logFields ?? { issue: work.key }), attempt: input.attempt }),
    started: deps.clock.now(),
    agentGitDir: agentGitDirPath(input.worktreesDir, work.worktreeName),
    scrubbed,
    git: { env: scrubbed, signal: input.signal, redact: input.redact },
    worktree: join(input.worktreesDir, work.worktreeName),
    model: config.model.primary,
    models: [],
    messages: [],
    filesChanged: [],
    verifyRuns: 0,
    keep: false,
    delivered: false,
    remember,
    observer: (event: AgentEvent) => {
      if (event.type === 'model_call') {
        state.model = event.model;
        if (!state.models.includes(event.model)) state.models.push(event.model);
      }
      if (event.type !== 'tool_call' && event.type !== 'tool_result')
        remember(event.type, eventFields(event));
      input.onEvent?.(event);
    },
    async turn(content) {
      const engine = state.engine as SessionEngine;
      const done = await engine.run(content);
      state.result = done;
      state.messages = engine.messages();
      state.model = engine.model();
      return done;
    },
    report: (outcome, reason, extra = {}) => reportOf(state, outcome, reason, extra),
  };
  return state;
}

function reportOf(
  state: SessionState,
  outcome: Outcome,
  reason: string,
  extra: Partial<SessionReport>,
): SessionReport {
  const { input, filesChanged, verify } = state;
  const totals = state.result?.totals;
  const toolCalls = totals?.toolCalls ?? 0;
  const sessionId = state.engine?.sessionId?.();
  const blockedRequests = cleanBlocked(state.sandboxes?.blocked() ?? [], input.redact);
  const blockedOthers = state.sandboxes?.blockedOthers?.() ?? 0;
  return {
    issue: input.work.key,
    attempt: input.attempt,
    outcome,
    reason: input.redact(reason),
    filesChanged,
    ...(verify ? { verify } : {}),
    verifyRuns: state.verifyRuns,
    model: state.model,
    modelCalls: totals?.modelCalls ?? 0,
    toolCalls,
    tokens: totals ? totalTokens(totals.usage) : 0,
    usage: { ...(totals?.usage ?? ZERO_USAGE) },
    ...(state.engine ? { engine: state.engine.name } : {}),
    models: state.models.length > 0 || !totals?.modelCalls ? [...state.models] : [state.model],
    costUsd: totals?.costUsd ?? 0,
    durationMs: input.deps.clock.now() - state.started,
    productivity: productivity(filesChanged.length, extra.pr?.created ? 1 : 0, toolCalls),
    partialContext: input.redact(partialContextOf(state.messages)),
    ...(sessionId ? { sessionId } : {}),
    ...(blockedRequests.length > 0 ? { blockedRequests } : {}),
    ...(blockedOthers > 0 ? { blockedOthers } : {}),
    ...extra,
  };
}
