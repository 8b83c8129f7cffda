import { secretValues } from '../agent/tools/scrub-env.js';
import type { RefusedModelRequest } from '../sandbox/model-proxy.js';
import type { WorktreeSandboxes } from '../sandbox/sandbox-host.js';
import { createClaudeCodeEngine } from './claude-code/claude-code-engine.js';
import { claudeConfigDir, claudeScope, unconfinedConfigDir } from './claude-code/claude-scope.js';
import { type ModelAccess, openModelAccess } from './claude-code/model-access.js';
import type { EngineName, EngineTotals, SessionEngine, ThreadCarry } from './engine.js';
import {
  createFallbackEngine,
  type FallbackEvent,
  MIN_FALLBACK_MS,
  remainingBudget,
} from './fallback/fallback-engine.js';
import { seededFallbackPrompt } from './fallback/fallback-seed.js';
import { createNativeEngine } from './native/native-engine.js';
import type { SessionAgentOptions } from './native/session-agent.js';

export interface OpenEngineInput
  extends Pick<
    SessionAgentOptions,
    | 'worktree'
    | 'repo'
    | 'branch'
    | 'task'
    | 'subject'
    | 'boot'
    | 'config'
    | 'models'
    | 'env'
    | 'redact'
    | 'clock'
    | 'log'
    | 'observer'
    | 'signal'
  > {
  /** The work's engine, or the run's. */
  name: EngineName;
  /** A GitHub issue's raw body, where a boot directive may be. */
  rawBody: string;
  /** A task group's conversation, continued by the engine it ran on. */
  thread?: ThreadCarry | undefined;
  sandboxes: WorktreeSandboxes;
  /** When the session started: a fallback gets only what is left of its time. */
  started: number;
  /** The model the session reports, as the observer last saw it. */
  currentModel: () => string;
  /**
   * A plan session: the native engine gets reading tools only; Claude Code runs in its plan
   * permission mode with Read, Glob and Grep allowed.
   */
  readOnly?: boolean;
  /** Told when Claude Code hands over to the native engine. */
  onFallback?: (failed: FallbackEvent) => void;
}

export interface OpenedEngine {
  engine: SessionEngine;
  /** Claude Code's throwaway configuration, to remove with the worktree. */
  scratch?: string;
  /** The API calls Claude Code's model proxy refused (not one Claude Code needs), and how often. */
  refused(): RefusedModelRequest[];
  /** Stops what the engine keeps running for the session (Claude Code's model proxy); once, at clean-up. */
  close(): Promise<void>;
}

const NOTHING_OPEN = { refused: () => [], close: async () => undefined } as const;

/**
 * The session's model proxy, holding the credential `claude` never gets: on a loopback port of the
 * host only when `claude` runs unconfined, else behind the claude sandbox's bridge.
 */
async function modelAccess(input: OpenEngineInput): Promise<ModelAccess | undefined> {
  return openModelAccess({
    env: input.env,
    prices: input.config.model.prices,
    tcp: input.sandboxes.commands.kind === 'none',
    budgetUsd: input.config.session.max_usd,
    now: input.clock.now(),
    onRefused: refusalLog(input.log),
  });
}

/** Distinct refused requests logged, as the egress proxy's (session-network.ts); the rest are only counted. */
const MAX_LOGGED_REFUSALS = 50;

/**
 * Each distinct request the model proxy refuses is logged once, at most MAX_LOGGED_REFUSALS of
 * them, then one line that logging stops: a loop in the claude sandbox cannot flood the harness's
 * log. Every refusal stays counted in the session's report (`refused()`).
 */
function refusalLog(log: OpenEngineInput['log']): (request: string) => void {
  const logged = new Set<string>();
  let quiet = false;
  return (request) => {
    if (logged.has(request) || quiet) return;
    if (logged.size >= MAX_LOGGED_REFUSALS) {
      quiet = true;
      log.warn(
        {},
        `claude-code: the model proxy refused more than ${MAX_LOGGED_REFUSALS} distinct requests; the next ones are counted in the session's report, not logged`,
      );
      return;
    }
    logged.add(request);
    log.warn({ request }, `claude-code: the model proxy refused ${request} (not an API call it needs)`);
  };
}

/**
 * What `claude` runs with: the model proxy, the scrubbed copy of its configuration (holding none of
 * the credentials, the proxy's included), and, unconfined, that copy as its configuration directory.
 */
async function claudeSetup(input: OpenEngineInput) {
  const model = await modelAccess(input);
  try {
    const secrets = [
      ...secretValues(input.env, input.config.redact_env),
      ...(model ? [model.held.value] : []),
    ];
    const claudeHome = await claudeScope(input.config.claude_code.bin, input.env, secrets, input.worktree);
    const unconfined = input.sandboxes.commands.kind === 'none';
    const configDir = unconfined ? await unconfinedConfigDir(claudeHome) : undefined;
    return { model, claudeHome, configDir };
  } catch (err) {
    await model?.close();
    throw err;
  }
}

/** Claude Code for a plan session: the CLI's plan mode, and only its reading tools allowed. */
export function planningConfig(config: OpenEngineInput['config']): OpenEngineInput['config'] {
  return {
    ...config,
    claude_code: { ...config.claude_code, permission_mode: 'plan', allowed_tools: ['Read', 'Glob', 'Grep'] },
  };
}

/**
 * The session's engine: the native loop, or Claude Code in its sandbox with a throwaway copy of its
 * configuration, behind which the native engine waits when `claude_code.fallback` is `native`.
 */
export async function openSessionEngine(input: OpenEngineInput): Promise<OpenedEngine> {
  const { thread } = input;
  const config = input.readOnly ? planningConfig(input.config) : input.config;
  const native = (spent?: EngineTotals) =>
    createNativeEngine({
      worktree: input.worktree,
      repo: input.repo,
      branch: input.branch,
      rawIssueBody: input.rawBody,
      task: input.task,
      subject: input.subject,
      boot: input.boot,
      initial: !spent && thread?.engine === 'native' ? thread.messages : undefined,
      config: spent ? remainingBudget(config, spent, input.clock.now() - input.started) : config,
      models: input.models,
      env: input.env,
      redact: input.redact,
      clock: input.clock,
      log: input.log,
      observer: input.observer,
      signal: input.signal,
      sandbox: input.sandboxes.commands,
      currentModel: input.currentModel,
      ...(input.readOnly ? { readOnly: true } : {}),
    });
  if (input.name !== 'claude-code') return { engine: await native(), ...NOTHING_OPEN };

  const { model, claudeHome, configDir } = await claudeSetup(input);
  const claude = createClaudeCodeEngine({
    config,
    worktree: input.worktree,
    env: input.env,
    log: input.log,
    signal: input.signal,
    now: () => input.clock.now(),
    from: thread?.engine === 'claude-code' ? thread : undefined,
    boot: input.boot,
    sandbox: await input.sandboxes.claude(model ? { ...claudeHome, modelSocket: model.socket } : claudeHome),
    model,
    configDir,
    observer: input.observer,
    // The native engine needs time left to take over from a call that timed out.
    reserveMs: config.claude_code.fallback === 'native' ? MIN_FALLBACK_MS : 0,
  });
  const engine =
    config.claude_code.fallback === 'native'
      ? createFallbackEngine({
          primary: claude,
          config,
          elapsedMs: () => input.clock.now() - input.started,
          fallback: native,
          seed: ({ failureClass, task, sessionId }) =>
            seededFallbackPrompt({
              chainStartedOn: 'claude-code',
              failedEngine: 'claude-code',
              next: 'native',
              failureClass,
              task,
              sessionId,
              cwd: input.worktree,
              // CLAUDE_CONFIG_DIR moves the session files with the rest of Claude Code's configuration.
              claudeHome: claudeConfigDir(input.env),
            }),
          log: input.log,
          ...(input.onFallback ? { onFallback: input.onFallback } : {}),
        })
      : claude;
  return {
    engine,
    scratch: claudeHome.scratch,
    refused: () => model?.refused() ?? [],
    close: async () => model?.close(),
  };
}
