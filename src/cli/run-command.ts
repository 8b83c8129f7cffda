import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createModelRuntime } from '../agent/session-model.js';
import { openClaimStore } from '../claims/open-claim-store.js';
import type { Config } from '../config/schema.js';
import type { Deps } from '../core/deps.js';
import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { openGitHubAdapter } from '../github/adapter.js';
import { createAnthropicModel } from '../model/anthropic-model.js';
import { type RunSummary, runRounds } from '../scheduler/run-rounds.js';
import { runGit } from '../session/git/index.js';
import { newRunId, openLedger } from '../session/ledger.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { buildGitHubClient, stateDirOf } from './github-deps.js';
import type { ProgressDisplay } from './progress-display.js';
import { renderRunSummary } from './run-summary.js';
import type { Env } from './secrets.js';

export interface RunFlags {
  dryRun?: boolean;
  once?: boolean;
  maxRounds?: string;
  json?: boolean;
}

export interface RunCommandInput {
  env: Env;
  cwd: string;
  config: Config;
  flags: RunFlags;
  deps: Deps;
  redact: Redactor;
  version: string;
  /** SIGINT / SIGTERM: stop claiming, interrupt the sessions, save their state. */
  interrupt: AbortSignal;
  progress?: ProgressDisplay;
  stdout: (text: string) => void;
  fetch?: typeof fetch;
  writeSpacingMs?: number;
}

function maxRoundsOf(flags: RunFlags, config: Config): number | undefined {
  if (flags.once) return 1;
  if (flags.maxRounds === undefined) return config.max_rounds;
  const rounds = Number(flags.maxRounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new UsageError(
      `--max-rounds ${JSON.stringify(flags.maxRounds)}: expected a whole number of rounds, at least 1`,
    );
  }
  return rounds;
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

/** `issueloop run`: rounds over the backlog until it stays empty, then a summary. */
export async function runRun(input: RunCommandInput): Promise<ExitCode> {
  const { config, deps, env, redact } = input;
  const maxRounds = maxRoundsOf(input.flags, config);
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey && !input.flags.dryRun) throw new UsageError('no Anthropic API key: export ANTHROPIC_API_KEY');
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
  if (input.flags.dryRun) {
    const { planDryRun, renderDryRun } = await import('./dry-run.js');
    const plan = await planDryRun({ github, claims, config, stateDir, now: deps.clock.now() });
    input.stdout(input.flags.json ? `${JSON.stringify(plan, null, 2)}\n` : renderDryRun(plan));
    return EXIT.ok;
  }
  const models = createModelRuntime({
    adapter: createAnthropicModel({
      apiKey: apiKey ?? '',
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
    stateDir,
    runId: newRunId(deps.clock, deps.random),
    clock: deps.clock,
    redact,
    log: deps.log,
  });
  const worktreesDir = join(stateDir, 'worktrees');
  await mkdir(worktreesDir, { recursive: true });
  const baseBranch = config.pr.base ?? (await github.pulls.defaultBranch());
  await ledger.append('run_start', {
    repo: config.repo,
    base: baseBranch,
    workers: config.workers,
    maxRounds,
  });

  let summary: RunSummary;
  try {
    summary = await runRounds(
      {
        config,
        github,
        claims,
        deps,
        ledger,
        signal: input.interrupt,
        checkout,
        remote: 'origin',
        baseBranch,
        worktreesDir,
        repo: `${client.repo.owner}/${client.repo.name}`,
        models,
        env,
        redact,
        ...(input.progress ? { progress: input.progress } : {}),
      },
      { owner: `${hostname()}:${process.pid}`, ...(maxRounds !== undefined ? { maxRounds } : {}) },
    );
  } finally {
    input.progress?.stop();
    await github.flush().catch(() => undefined);
  }
  const requests = { charged: client.metrics.charged, free: client.metrics.uncharged };
  await ledger.append('run_end', {
    stop: summary.stop,
    rounds: summary.rounds,
    costUsd: summary.costUsd,
    requests,
  });
  await ledger.flush();
  input.stdout(
    input.flags.json
      ? `${JSON.stringify({ ...summary, requests, ledger: ledger.file }, null, 2)}\n`
      : renderRunSummary(summary, requests, ledger.file),
  );
  return summary.stop === 'interrupted' ? EXIT.interrupted : EXIT.ok;
}
