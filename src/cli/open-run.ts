import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createModelRuntime } from '../agent/session-model.js';
import type { ClaimStore } from '../claims/claim-store.js';
import { openClaimStore } from '../claims/open-claim-store.js';
import type { Config } from '../config/schema.js';
import type { Deps } from '../core/deps.js';
import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { type GitHubAdapter, openGitHubAdapter } from '../github/adapter.js';
import type { GitHubClient } from '../github/client.js';
import { createAnthropicModel } from '../model/anthropic-model.js';
import type { ProgressSink } from '../scheduler/progress.js';
import { type RunOptions, type RunSummary, runRounds } from '../scheduler/run-rounds.js';
import type { WorkContext } from '../scheduler/work-issue.js';
import { runGit } from '../session/git/index.js';
import { type Ledger, newRunId, openLedger } from '../session/ledger.js';
import { buildGitHubClient, stateDirOf } from './github-deps.js';
import type { Env } from './secrets.js';

/**
 * The wiring of a run, shared by `issueloop run` and the GitHub Action: the checkout, the GitHub
 * client and adapter, the claim store, the model runtime and the ledger, then the rounds themselves
 * with the ledger's `run_start` / `run_end` around them.
 */
export interface OpenRunInput {
  env: Env;
  cwd: string;
  config: Config;
  deps: Deps;
  redact: Redactor;
  version: string;
  /** SIGINT / SIGTERM (or the action's time budget): stop claiming, interrupt the sessions. */
  interrupt: AbortSignal;
  progress?: ProgressSink & { stop?(): void };
  fetch?: typeof fetch;
  writeSpacingMs?: number;
}

export interface RunBase {
  checkout: string;
  client: GitHubClient;
  github: GitHubAdapter;
  claims: ClaimStore;
  stateDir: string;
}

export interface OpenedRun extends RunBase {
  ctx: WorkContext;
  ledger: Ledger;
}

export interface FinishedRun {
  summary: RunSummary;
  requests: { charged: number; free: number };
  ledgerFile: string;
}

async function checkoutOf(cwd: string, env: Env, redact: Redactor): Promise<string> {
  try {
    return (await runGit(['rev-parse', '--show-toplevel'], { cwd, env, redact })).stdout.trim();
  } catch {
    throw new UsageError(
      `${cwd} is not a git checkout: run issueloop in a clone of the repository it works on`,
    );
  }
}

/** What a run and a dry run both need: the checkout, GitHub and the claim store. */
export async function openRunBase(input: OpenRunInput): Promise<RunBase> {
  const { config, deps, env, redact } = input;
  const checkout = await checkoutOf(input.cwd, env, redact);
  const client = buildGitHubClient({
    env,
    config,
    cwd: input.cwd,
    log: deps.log,
    redact,
    version: input.version,
    ...(input.fetch ? { fetch: input.fetch } : {}),
    ...(input.writeSpacingMs !== undefined ? { writeSpacingMs: input.writeSpacingMs } : {}),
  });
  const stateDir = stateDirOf(config, input.cwd);
  const github = await openGitHubAdapter(client, config, { stateDir });
  const claims = openClaimStore(config, { cwd: input.cwd, clock: deps.clock, redact }).store;
  return { checkout, client, github, claims, stateDir };
}

export function requireAnthropicKey(env: Env): string {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new UsageError('no Anthropic API key: export ANTHROPIC_API_KEY');
  return apiKey;
}

/** Everything a run needs; the Anthropic key is required here, not for a dry run. */
export async function openRun(input: OpenRunInput, opened?: RunBase): Promise<OpenedRun> {
  const { config, deps, env, redact } = input;
  const apiKey = requireAnthropicKey(env);
  const base = opened ?? (await openRunBase(input));
  const models = createModelRuntime({
    adapter: createAnthropicModel({
      apiKey,
      baseURL: env.ANTHROPIC_BASE_URL || undefined,
      prices: config.model.prices,
      redact,
      ...(input.fetch ? { fetch: input.fetch } : {}),
    }),
    settings: {
      primary: config.model.primary,
      fallbacks: config.model.fallbacks,
      diagnosisModel: config.model.diagnosis_model,
      contextWindow: config.model.context_window,
    },
    deps,
    redact,
  });
  const ledger = await openLedger({
    stateDir: base.stateDir,
    runId: newRunId(deps.clock, deps.random),
    clock: deps.clock,
    redact,
    log: deps.log,
  });
  const worktreesDir = join(base.stateDir, 'worktrees');
  await mkdir(worktreesDir, { recursive: true });
  const baseBranch = config.pr.base ?? (await base.github.pulls.defaultBranch());
  const ctx: WorkContext = {
    config,
    github: base.github,
    claims: base.claims,
    deps,
    ledger,
    signal: input.interrupt,
    checkout: base.checkout,
    remote: 'origin',
    baseBranch,
    worktreesDir,
    repo: `${base.client.repo.owner}/${base.client.repo.name}`,
    models,
    env,
    redact,
    ...(input.progress ? { progress: input.progress } : {}),
  };
  return { ...base, ctx, ledger };
}

/** The rounds, between the ledger's `run_start` and `run_end`; the ETag cache is saved either way. */
export async function executeRun(
  run: OpenedRun,
  options: RunOptions,
  progress?: { stop?(): void },
): Promise<FinishedRun> {
  const { ctx, ledger, client } = run;
  await ledger.append('run_start', {
    repo: ctx.repo,
    base: ctx.baseBranch,
    workers: ctx.config.workers,
    maxRounds: options.maxRounds,
    ...(options.only !== undefined ? { only: options.only } : {}),
  });
  let summary: RunSummary;
  try {
    summary = await runRounds(ctx, options);
  } finally {
    progress?.stop?.();
    await run.github.flush().catch(() => undefined);
  }
  const requests = { charged: client.metrics.charged, free: client.metrics.uncharged };
  await ledger.append('run_end', {
    stop: summary.stop,
    rounds: summary.rounds,
    costUsd: summary.costUsd,
    requests,
  });
  await ledger.flush();
  return { summary, requests, ledgerFile: ledger.file };
}
