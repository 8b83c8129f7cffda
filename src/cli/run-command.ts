import { hostname } from 'node:os';
import type { Config } from '../config/schema.js';
import type { Deps } from '../core/deps.js';
import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { executeRun, type FinishedRun, openRun, openRunBase, requireAnthropicKey } from './open-run.js';
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

/** `issueloop run`: rounds over the backlog until it stays empty, then a summary. */
export async function runRun(input: RunCommandInput): Promise<ExitCode> {
  const maxRounds = maxRoundsOf(input.flags, input.config);
  if (!input.flags.dryRun) requireAnthropicKey(input.env);
  const base = await openRunBase(input);
  let finished: FinishedRun;
  try {
    if (input.flags.dryRun) {
      const { planDryRun, renderDryRun } = await import('./dry-run.js');
      const { github, claims, stateDir } = base;
      const plan = await planDryRun({
        github,
        claims,
        config: input.config,
        stateDir,
        now: input.deps.clock.now(),
      });
      input.stdout(input.flags.json ? `${JSON.stringify(plan, null, 2)}\n` : renderDryRun(plan));
      return EXIT.ok;
    }
    finished = await executeRun(
      await openRun(input, base),
      { owner: `${hostname()}:${process.pid}`, ...(maxRounds !== undefined ? { maxRounds } : {}) },
      input.progress,
    );
  } finally {
    // A Redis store's connection would keep the process alive.
    await base.claims.close();
  }
  const { summary, requests, ledgerFile } = finished;
  input.stdout(
    input.flags.json
      ? `${JSON.stringify({ ...summary, requests, ledger: ledgerFile }, null, 2)}\n`
      : renderRunSummary(summary, requests, ledgerFile),
  );
  return summary.stop === 'interrupted' ? EXIT.interrupted : EXIT.ok;
}
