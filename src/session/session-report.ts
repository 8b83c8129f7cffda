import type { AgentObserver } from '../agent/events.js';
import type { Config } from '../config/schema.js';
import type { Deps } from '../core/deps.js';
import type { Redactor } from '../core/redact.js';
import type { EngineName } from '../engines/engine.js';
import type { ModelRuntime } from '../engines/native/session-agent.js';
import type { TokenUsage } from '../model/types.js';
import type { BlockedRequest } from '../sandbox/blocked-requests.js';
import type { SandboxHost } from '../sandbox/sandbox-host.js';
import type { Ledger } from './ledger.js';
import type { Outcome, Productivity } from './outcome.js';
import type { ResumeContext, SessionWork } from './session-work.js';
import type { VerifyResult } from './verify.js';

/** Seed 000 feature 6: the tail of the transcript an interrupted attempt leaves for the next one. */
export const PARTIAL_CONTEXT_CHARS = 500;

export type SessionPhase = 'working' | 'verifying' | 'publishing';

export interface SessionInput {
  /** A GitHub issue (`issueWork`) or a task of a task file (`taskWork`). */
  work: SessionWork;
  attempt: number;
  /** From an interrupted attempt, and from the diagnosis of the last unknown failure. */
  resume?: ResumeContext;
  checkout: string;
  worktreesDir: string;
  /** What the system prompt calls the repository. */
  repo: string;
  config: Config;
  models: ModelRuntime;
  env: Readonly<Record<string, string | undefined>>;
  redact: Redactor;
  /** Where everything the agent runs runs: bubblewrap, or unconfined under `sandbox.mode: none`. */
  sandbox: SandboxHost;
  deps: Pick<Deps, 'clock' | 'random' | 'log'>;
  ledger?: Ledger;
  signal: AbortSignal;
  onPhase?: (phase: SessionPhase) => void;
  onEvent?: AgentObserver;
}

export interface SessionReport {
  issue: number;
  attempt: number;
  outcome: Outcome;
  reason: string;
  filesChanged: string[];
  verify?: VerifyResult;
  verifyRuns: number;
  commit?: string;
  pr?: { number: number; url: string; created: boolean };
  model: string;
  modelCalls: number;
  toolCalls: number;
  tokens: number;
  /** `tokens` split the way they are billed (the outcome record keeps them). */
  usage?: TokenUsage;
  /** The engine that worked the session last (a fallback to native says `native`). */
  engine?: EngineName;
  /** Every model that answered, in order of first use. */
  models?: string[];
  costUsd: number;
  durationMs: number;
  productivity: Productivity;
  /** The last ~500 characters of the transcript, for an interrupted attempt's successor. */
  partialContext: string;
  /** The diagnosis hint for the next attempt, after an unknown failure. */
  hint?: string;
  /** Claude Code's session, when the work ran on it. */
  sessionId?: string;
  /**
   * The harness refused the change in a way no retry fixes (it touches `protected_paths`): the item
   * goes to a human now, not after `max_failures`.
   */
  needsHuman?: true;
  /** Destinations the session's sandboxes asked for and the egress proxy refused (omitted when none). */
  blockedRequests?: BlockedRequest[];
  /** Refusals of destinations the tally could not list (past its cap; omitted when none). */
  blockedOthers?: number;
  /** A best-of-N claim's combined report: its attempts and the judge's choice (absent for one session). */
  bestOf?: BestOfSummary;
}

/** What a best-of-N claim ran and chose, for the tracking comment, the run summary and the ledger. */
export interface BestOfSummary {
  /** The attempts the claim was given (`attempts.n`). */
  n: number;
  /** Each attempt that ran, in order, with how it ended (`not_chosen` for the losers). */
  ran: Array<{ k: number; outcome: string }>;
  /** The attempt delivered; absent when none was. */
  winner?: number;
  /** The judge's one line (harness-written; a model's reason is clipped). */
  why: string;
}
