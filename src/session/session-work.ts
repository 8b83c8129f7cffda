import type { LastFailure } from '../agent/first-message.js';
import type { WorkSubject } from '../agent/system-prompt.js';
import type { EngineName, ThreadCarry } from '../engines/engine.js';
import type { BlockedRequest } from '../sandbox/blocked-requests.js';
import type { GitOptions } from './git/index.js';
import type { VerifyResult } from './verify.js';

/**
 * Thrown by a delivery whose read-back disagrees with what it wrote (the PR, the issue, the branch's
 * ref): the session ends `error:conflict` with the evidence.
 */
export class ReadBackError extends Error {
  override name = 'ReadBackError';
}

/** What earlier attempts left for this one: an interrupted attempt's tail, a diagnosis hint, its failure. */
export interface ResumeContext {
  interruptedContext?: string;
  hint?: string;
  /**
   * How the previous attempt failed (the claim record's newest failure reason: redacted, one line);
   * absent after an interruption, a success, or when failures were cleared.
   */
  lastFailure?: LastFailure;
}

/**
 * What the harness did in the fresh worktree before any agent (a follow-up merging its PR's base).
 */
export interface Prepared {
  /**
   * False when the harness's own change needs no agent: it is verified and delivered as it is, and
   * the agent is started only if the verify command fails (with the failure as its first task).
   */
  agent: boolean;
  /** The delivery's summary when no agent ran. */
  summary?: string;
  /**
   * What the secret scan compares against instead of the start point: the base a merge brought in
   * (its commits are already public on the default branch; only what the branch adds is scanned).
   */
  scanFrom?: string;
  /**
   * A merge is under way: its second parent, which the commit gets from the harness (never from
   * MERGE_HEAD). A merge is a change even when the files end up as they were.
   */
  mergeParent?: string;
  /** Why the harness will not go on (the session ends `refused`, before any agent). */
  refused?: string;
}

/** Where a plan session's plan goes (a comment on the issue). */
export interface PlanStep {
  post(plan: string): Promise<string>;
}

/** What the harness hands over once the work is validated. */
export interface DeliveryInput {
  worktree: string;
  /** The agent's last message. */
  summary: string;
  filesChanged: string[];
  verify?: VerifyResult;
  costUsd: number;
  model: string;
  modelCalls: number;
  toolCalls: number;
  /** What the egress proxy refused during the session: the PR body lists it. */
  blockedRequests: BlockedRequest[];
  /** Refusals of destinations past the tally's cap: the PR body counts them. */
  blockedOthers?: number;
  /** Best-of-N: this attempt was chosen from `from`, for `why`; the attempts and the judge cost `totalUsd`. */
  chosen?: { from: number; why: string; totalUsd: number };
}

export interface Delivered {
  commit: string;
  /** The outcome's reason: `draft PR #12`, `committed 1a2b3c4 on issueloop/tasks/plan`. */
  reason: string;
  pr?: { number: number; url: string; created: boolean };
}

/**
 * One unit of work as a session sees it: a GitHub issue or a task of a task file. The session code
 * (worktree, engine, validation, outcomes) is the same for both; where the branch starts, what the
 * agent is told first and how validated work is delivered come from here.
 */
export interface SessionWork {
  /** The claim key, and the report's `issue`. */
  key: number;
  /** How log lines name it, when not `{ issue: key }` (a task: `{ task: 3 }`). */
  logFields?: Readonly<Record<string, unknown>>;
  subject: WorkSubject;
  branch: string;
  /** The worktree's directory under the run's worktrees directory. */
  worktreeName: string;
  /** One line naming the work: `Issue #12: Fix the greeting`. */
  task: string;
  /** A GitHub issue's raw body, where a `<!-- boot: path -->` directive may be. */
  rawBody: string;
  /** A boot file read by the caller (a task file's directive), used instead of the lookup. */
  boot?: { path: string; text: string };
  /** The engine for this work when it differs from the run's (a task group's directive). */
  engine?: EngineName;
  /** A task group's conversation: where it continues from, and where the session leaves it. */
  thread?: { from?: ThreadCarry; keep(carry: ThreadCarry): void };
  firstMessage(resume: ResumeContext | undefined): string;
  /** The revision the branch starts from. */
  startPoint(git: GitOptions): Promise<string>;
  /**
   * The base branch's revision `sandbox.setup_domains: [auto]` detects registries from, when the
   * start point is not on it (a follow-up starts from the agent's own branch). Without it, the start
   * point.
   */
  setupBase?(git: GitOptions): Promise<string>;
  /**
   * Run by the harness in the new worktree, before the sandbox is built over it and before any agent:
   * a follow-up merges its PR's base here. Without it the agent starts at once.
   */
  prepare?(worktree: string, git: GitOptions): Promise<Prepared>;
  /**
   * What the harness still finds undone in the worktree after a turn, before the verify command (a
   * merge's conflict markers): one sentence for the agent's fix-up turn, or undefined.
   */
  unfinished?(worktree: string): Promise<string | undefined>;
  /**
   * A session that only plans (asked once the start point is known): the engine gets reading tools
   * only, setup, verify, commit and push are skipped, and the agent's final text goes to `post`,
   * which returns the outcome's reason. The session ends `plan_review`.
   */
  planOnly?(): PlanStep | undefined;
  /** Commits the validated work and hands it over (a pushed branch and a draft PR, or a local branch). */
  deliver(input: DeliveryInput, git: GitOptions): Promise<Delivered>;
}
