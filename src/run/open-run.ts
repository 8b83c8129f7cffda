import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClaimStore } from '../claims/claim-store.js';
import { openClaimStore, openOutcomeStore, openSpendLedger } from '../claims/open-claim-store.js';
import type { OutcomeStore } from '../claims/outcome-store.js';
import type { SpendLedger } from '../claims/spend-ledger.js';
import { protectedPathsWarning } from '../config/protected-paths.js';
import type { Config } from '../config/schema.js';
import type { Deps } from '../core/deps.js';
import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { type GitHubAdapter, openGitHubAdapter } from '../github/adapter.js';
import { commitAuthorFor } from '../github/app-identity.js';
import type { GitHubClient } from '../github/client.js';
import type { IssueComment } from '../github/comment-commands.js';
import type { BacklogIssue } from '../github/issue-shape.js';
import type { ProgressSink } from '../scheduler/progress.js';
import { type RunOptions, type RunSummary, runRounds } from '../scheduler/run-rounds.js';
import { assertSessionFitsCaps } from '../scheduler/spend-gate.js';
import type { WorkContext } from '../scheduler/work-item.js';
import type { WorkItem } from '../scheduler/work-source.js';
import { runGit } from '../session/git/index.js';
import { type Ledger, newRunId, openLedger } from '../session/ledger.js';
import { createIssueSource } from '../sources/issues/issue-source.js';
import { buildGitHubClient, stateDirOf } from './github-deps.js';
import { openCheckedModels, requireAnthropicKey } from './open-models.js';
import { openSandbox } from './open-sandbox.js';
import { assertPrerequisites } from './prerequisites.js';
import { resolveOrigin } from './resolve-origin.js';
import type { Env } from './secrets.js';
import { withRunTelemetry } from './telemetry-setup.js';

// Part of opening a run; its own module only to keep this file short.
export { openCheckedModels, openModels, requireAnthropicKey } from './open-models.js';
export { resolveOrigin } from './resolve-origin.js';

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
  /** Work follow-ups of issueloop's PRs only (the action's run for a pull request's event). */
  followUpsOnly?: boolean;
  /** The action's run for a command in a comment: the sweep works that comment alone. */
  command?: IssueComment;
  /** Claim nothing, for this reason (the action's run for `/issueloop stop`). */
  claimNothing?: string;
  /** `run --issue N`: these issues, each once, and the run ends when none is left to claim. */
  issues?: readonly number[];
}

export interface RunBase {
  checkout: string;
  client: GitHubClient;
  github: GitHubAdapter;
  claims: ClaimStore;
  /** The issues' outcome records beside the claims (`outcomes.json` or the same Redis). */
  outcomes: OutcomeStore;
  /** The spend caps shared through the claim store, when `budget` sets one. */
  spend?: SpendLedger;
  stateDir: string;
  /** Lets go of the stores' connections (a Redis store's would keep the process alive). */
  close(): Promise<void>;
}

export interface OpenedRun extends RunBase {
  ctx: WorkContext<BacklogIssue>;
  ledger: Ledger;
  baseBranch: string;
}

export interface FinishedRun {
  summary: RunSummary;
  requests: { charged: number; free: number };
  ledgerFile: string;
}

/** The top of the git checkout `cwd` is in; a usage error ending with `fix` when it is in none. */
export async function checkoutOf(
  cwd: string,
  env: Env,
  redact: Redactor,
  fix = 'run issueloop in a clone of the repository it works on',
): Promise<string> {
  try {
    return (await runGit(['rev-parse', '--show-toplevel'], { cwd, env, redact })).stdout.trim();
  } catch (err) {
    if (/could not start git/.test(String((err as Error).message)))
      throw new UsageError(`git is not on PATH: install git (e.g. \`apt-get install git\`)`);
    throw new UsageError(`${cwd} is not a git checkout: ${fix}`);
  }
}

/** What a run and a dry run both need: the checkout, GitHub and the claim store. */
export async function openRunBase(input: OpenRunInput): Promise<RunBase> {
  const { config, deps, env, redact } = input;
  // The action comes here directly: an endpoint that can never work stops it before the backlog.
  assertPrerequisites(env, config, { github: true, model: false });
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
  const claims = openClaimStore(config, { cwd: input.cwd, clock: deps.clock, redact, log: deps.log }).store;
  const outcomes = openOutcomeStore(config, { cwd: input.cwd }).store;
  const spend = openSpendLedger(config, { cwd: input.cwd, clock: deps.clock });
  const close = () => Promise.all([claims.close(), spend?.close()]).then(() => undefined);
  return { checkout, client, github, claims, outcomes, ...(spend ? { spend } : {}), stateDir, close };
}

/** A run's ledger (`<ledgerDir>/runs/<run-id>.jsonl`) and the worktrees directory under the state directory. */
export async function openRunFiles(
  input: Pick<OpenRunInput, 'deps' | 'redact'>,
  stateDir: string,
  ledgerDir: string,
): Promise<{ ledger: Ledger; worktreesDir: string }> {
  const { deps } = input;
  const ledger = await openLedger({
    stateDir: ledgerDir,
    runId: newRunId(deps.clock, deps.random),
    clock: deps.clock,
    redact: input.redact,
    log: deps.log,
  });
  const worktreesDir = join(stateDir, 'worktrees');
  await mkdir(worktreesDir, { recursive: true });
  return { ledger, worktreesDir };
}

/** Everything a run needs; the Anthropic key is required here, not for a dry run. */
export async function openRun(input: OpenRunInput, opened?: RunBase): Promise<OpenedRun> {
  const { deps, env, redact } = input;
  // Named issues: the run ends at the first round with nothing to claim, not after empty_rounds.
  const named = input.issues ? { ...input.config, empty_rounds: 1 } : input.config;
  const apiKey = requireAnthropicKey(env);
  assertSessionFitsCaps(named);
  const base = opened ?? (await openRunBase(input));
  // With a GitHub App, its bot user authors the commits unless pr.author names someone. Asked before
  // the sandbox opens: an App that cannot act for the repository ends the run here, with its fix.
  const author = await commitAuthorFor(base.client, named.pr.author);
  const config = { ...named, pr: { ...named.pr, author } };
  const sandbox = await openSandbox(config, env, deps.log, input.cwd);
  const unprotected = protectedPathsWarning(config.protected_paths);
  if (unprotected) deps.log.warn(unprotected);
  const models = await openCheckedModels(input, apiKey, { check: true });
  const { ledger, worktreesDir } = await openRunFiles(input, base.stateDir, base.stateDir);
  const baseBranch = config.pr.base ?? (await base.github.pulls.defaultBranch());
  const ctx: WorkContext<BacklogIssue> = {
    config,
    source: createIssueSource({
      github: base.github,
      config,
      redact,
      checkout: base.checkout,
      // git asks the client's own source at each fetch and push: an App's token current at that moment.
      remote: await resolveOrigin(base.checkout, env, redact, base.client.tokenSource),
      baseBranch,
      log: deps.log,
      clock: deps.clock,
      outcomes: base.outcomes,
      ...(input.followUpsOnly ? { followUpsOnly: true } : {}),
      ...(input.command ? { command: input.command } : {}),
      ...(input.claimNothing ? { claimNothing: input.claimNothing } : {}),
      ...(input.issues ? { issues: input.issues } : {}),
    }),
    claims: base.claims,
    ...(base.spend ? { spend: base.spend } : {}),
    deps,
    ledger,
    signal: input.interrupt,
    checkout: base.checkout,
    worktreesDir,
    repo: `${base.client.repo.owner}/${base.client.repo.name}`,
    models,
    env,
    redact,
    sandbox,
    ...(input.progress ? { progress: input.progress } : {}),
  };
  return { ...base, ctx, ledger, baseBranch };
}

/** The rounds, between the ledger's `run_start` and `run_end`; the ETag cache is saved either way. */
export async function executeRun(
  run: OpenedRun,
  options: RunOptions,
  progress?: { stop?(): void },
): Promise<FinishedRun> {
  const { ctx, client } = run;
  return executeRounds(
    {
      ctx,
      ledger: run.ledger,
      start: {
        repo: ctx.repo,
        base: run.baseBranch,
        workers: ctx.config.workers,
        maxRounds: options.maxRounds,
        ...(options.only !== undefined ? { only: options.only } : {}),
      },
      close: () => Promise.all([run.github.flush(), run.outcomes.close()]),
      requests: () => ({ charged: client.metrics.charged, free: client.metrics.uncharged }),
    },
    options,
    progress,
  );
}

/** Any source's rounds between the ledger's `run_start` and `run_end`; `close` runs either way. */
export async function executeRounds<T extends WorkItem>(
  run: {
    ctx: WorkContext<T>;
    ledger: Ledger;
    start: Record<string, unknown>;
    close?: () => Promise<unknown>;
    requests?: () => { charged: number; free: number };
  },
  options: RunOptions,
  progress?: { stop?(): void },
): Promise<FinishedRun> {
  const { ctx, ledger } = run;
  await ledger.append('run_start', run.start);
  let summary: RunSummary;
  try {
    const telemetry = { env: ctx.env, config: ctx.config, redact: ctx.redact, log: ctx.deps.log };
    summary = await withRunTelemetry({ ...telemetry, runId: ledger.runId, repo: ctx.repo }, () =>
      runRounds(ctx, options),
    );
  } finally {
    progress?.stop?.();
    await run.close?.().catch(() => undefined);
  }
  const requests = run.requests?.() ?? { charged: 0, free: 0 };
  await ledger.append('run_end', {
    stop: summary.stop,
    ...(summary.stopDetail ? { stopDetail: summary.stopDetail } : {}),
    rounds: summary.rounds,
    costUsd: summary.costUsd,
    requests,
  });
  await ledger.flush();
  return { summary, requests, ledgerFile: ledger.file };
}
