import { type Agent, createAgent } from '../../agent/agent-loop.js';
import type { AgentObserver } from '../../agent/events.js';
import { type BootLookup, findBootFile, readIdentityFiles } from '../../agent/project-files.js';
import { renderSystemPrompt, type WorkSubject } from '../../agent/system-prompt.js';
import { createToolset, type Toolset } from '../../agent/tools/toolset.js';
import type { Config } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { MessageParam } from '../../model/types.js';
import type { CommandSandbox } from '../../sandbox/sandbox.js';
import type { createModelRuntime, SessionModel } from './model-runtime.js';

export type ModelRuntime = ReturnType<typeof createModelRuntime>;

export interface SessionAgent {
  agent: Agent;
  toolset: Toolset;
  model: SessionModel;
  promptVersion: string;
  bootFile?: string;
  warnings: string[];
}

/**
 * Everything one issue's agent stands on: the system prompt with the project's boot file, the
 * identity files re-read before each call, tools confined to the worktree with a scrubbed
 * environment, and the model runtime reset to the primary for this issue.
 */
export interface SessionAgentOptions {
  worktree: string;
  repo: string;
  branch: string;
  rawIssueBody: string;
  task: string;
  config: Config;
  models: ModelRuntime;
  env: Readonly<Record<string, string | undefined>>;
  redact: Redactor;
  clock: Pick<Clock, 'now'>;
  log: Log;
  observer: AgentObserver;
  signal: AbortSignal;
  /** Where the agent's bash commands run. */
  sandbox: CommandSandbox;
  subject?: WorkSubject;
  /** A boot file the caller read (a task file's directive), used instead of the lookup. */
  boot?: { path: string; text: string } | undefined;
  /** The conversation so far: a task group's previous task. */
  initial?: readonly MessageParam[] | undefined;
  /** Reading tools only: a plan session. */
  readOnly?: boolean;
}

export async function buildSessionAgent(options: SessionAgentOptions): Promise<SessionAgent> {
  const { config, worktree } = options;
  const boot: BootLookup = options.boot
    ? { boot: { ...options.boot, truncated: false, source: 'directive' }, warnings: [] }
    : await findBootFile(worktree, options.rawIssueBody, config.session.boot_file);
  const system = await renderSystemPrompt({
    ...(options.subject ? { subject: options.subject } : {}),
    repo: options.repo,
    branch: options.branch,
    verifyCommand: config.verify.command,
    maxModelCallsPerTurn: config.session.max_model_calls_per_turn,
    boot: boot.boot,
  });
  const model = await options.models.forIssue({
    task: options.task,
    observer: options.observer,
    signal: options.signal,
  });
  const toolset = createToolset({
    root: worktree,
    env: options.env,
    extraSecretNames: config.redact_env,
    bashTimeoutMs: config.session.command_timeout,
    maxOutputChars: config.session.max_tool_output,
    sandbox: options.sandbox,
    ...(options.readOnly ? { readOnly: true } : {}),
  });
  const agent = createAgent(
    {
      callModel: model.callModel,
      model: config.model.primary,
      system: async () => [system.text, await readIdentityFiles(worktree, config.session.identity_files)],
      tools: toolset,
      files: () => toolset.tracker.snapshot(),
      limits: {
        maxModelCallsPerTurn: config.session.max_model_calls_per_turn,
        maxModelCalls: config.session.max_model_calls,
        maxTokens: config.session.max_tokens,
        maxUsd: config.session.max_usd,
        maxDurationMs: config.session.max_duration,
      },
      contextWindow: model.contextWindow,
      compactionThreshold: config.model.compaction_threshold,
      maxOutputTokens: config.model.max_output_tokens,
      clock: options.clock,
      observer: options.observer,
      log: options.log,
      redact: options.redact,
      signal: options.signal,
    },
    options.initial,
  );
  return {
    agent,
    toolset,
    model,
    promptVersion: system.version,
    ...(boot.boot ? { bootFile: boot.boot.path } : {}),
    warnings: boot.warnings,
  };
}
