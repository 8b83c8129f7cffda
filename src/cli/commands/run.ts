import { hostname } from 'node:os';
import type { Config } from '../../config/schema.js';
import type { Deps } from '../../core/deps.js';
import { UsageError } from '../../core/errors.js';
import type { Redactor } from '../../core/redact.js';
import { terminalJson } from '../../core/terminal-text.js';
import { EXIT, type ExitCode } from '../../run/exit-codes.js';
import { executeRun, type FinishedRun, openRun, openRunBase, type RunBase } from '../../run/open-run.js';
import { assertPrerequisites, withRepoFromOrigin } from '../../run/prerequisites.js';
import type { ProgressDisplay } from '../../run/progress-display.js';
import { renderRunSummary, roundedCosts } from '../../run/run-summary.js';
import type { Env } from '../../run/secrets.js';

export interface RunFlags {
  dryRun?: boolean;
  once?: boolean;
  maxRounds?: string;
  json?: boolean;
  /** A task file instead of GitHub issues. */
  tasks?: string;
  /** The checkout to work in. */
  dir?: string;
  /** `--issue N`, repeatable: work these issues now (through the trust gate), then stop. */
  issue?: string[];
}

export interface RunCommandInput {
  env: Env;
  /** The checkout (`--dir`, else where the command runs). */
  cwd: string;
  /** Where the command runs: a task file's path is relative to it. */
  userCwd?: string;
  /** Filled with the tasks' labels for the progress lines. */
  labels?: Map<number, string>;
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

/** The numbers of `--issue`; a usage error naming any that is not an issue number. */
export function issueNumbers(values: readonly string[] | undefined): number[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const numbers = values.map((value) => {
    const text = value.trim().replace(/^#/, '');
    const number = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(number) || number < 1) {
      throw new UsageError(`--issue ${JSON.stringify(value)}: expected an issue number, e.g. --issue 42`);
    }
    return number;
  });
  return [...new Set(numbers)];
}

/** `issueloop run`: rounds over the backlog until it stays empty, then a summary. */
export async function runRun(input: RunCommandInput): Promise<ExitCode> {
  const maxRounds = maxRoundsOf(input.flags, input.config);
  const issues = issueNumbers(input.flags.issue);
  if (input.flags.tasks !== undefined) return runTaskFile(input, input.flags.tasks, maxRounds);
  return runIssues(
    { ...input, config: await withRepoFromOrigin(input.config, input.cwd, input.env, input.redact) },
    maxRounds,
    issues,
  );
}

/** Named issues that cannot be worked (closed, a pull request, missing) stop the run before it starts. */
async function checkNamed(base: RunBase, config: Config, issues: readonly number[]): Promise<void> {
  const { readNamedIssues } = await import('../../sources/issues/named-issues.js');
  const { refused } = await readNamedIssues(base.github, config, issues);
  if (refused.length === 1) throw new UsageError(`--issue: ${refused[0]}`);
  if (refused.length > 1) throw new UsageError(`--issue:\n${refused.map((r) => `  - ${r}`).join('\n')}`);
}

/** Why each named issue the run did not work was left (untrusted, leased by another runner…). */
function notWorked(summary: FinishedRun['summary'], issues: readonly number[] | undefined): string {
  if (!issues) return '';
  const worked = new Set(summary.reports.map((r) => r.issue));
  const lines = issues
    .filter((n) => !worked.has(n))
    .map(
      (n) => `#${n} not worked: ${summary.skipped.find((s) => s.issue === n)?.why ?? 'nothing to claim'}\n`,
    );
  return lines.join('');
}

async function runIssues(
  input: RunCommandInput,
  maxRounds: number | undefined,
  issues: number[] | undefined,
): Promise<ExitCode> {
  assertPrerequisites(input.env, input.config, { github: true, model: !input.flags.dryRun });
  const base = await openRunBase(input);
  let finished: FinishedRun;
  try {
    if (input.flags.dryRun) {
      const { planDryRun, renderDryRun } = await import('./dry-run.js');
      const { github, claims, spend, stateDir } = base;
      const plan = await planDryRun({
        github,
        claims,
        ...(spend ? { spend } : {}),
        config: input.config,
        stateDir,
        now: input.deps.clock.now(),
        ...(issues ? { issues } : {}),
      });
      input.stdout(input.flags.json ? `${terminalJson(plan, undefined, 2)}\n` : renderDryRun(plan));
      return EXIT.ok;
    }
    if (issues) await checkNamed(base, input.config, issues);
    finished = await executeRun(
      await openRun({ ...input, ...(issues ? { issues } : {}) }, base),
      { owner: `${hostname()}:${process.pid}`, ...(maxRounds !== undefined ? { maxRounds } : {}) },
      input.progress,
    );
  } finally {
    // A Redis store's connection would keep the process alive.
    await base.close();
  }
  const { summary, requests, ledgerFile } = finished;
  input.stdout(
    input.flags.json
      ? `${terminalJson({ ...summary, requests, ledger: ledgerFile }, roundedCosts, 2)}\n`
      : `${notWorked(summary, issues)}${renderRunSummary(summary, requests, ledgerFile, undefined, issues)}`,
  );
  return summary.stop === 'interrupted' ? EXIT.interrupted : EXIT.ok;
}

/** `run --tasks <file>`: the same rounds over a task file, without GitHub. */
async function runTaskFile(
  input: RunCommandInput,
  file: string,
  maxRounds: number | undefined,
): Promise<ExitCode> {
  const [tasks, { openTaskState }] = await Promise.all([import('./tasks.js'), import('./task-files.js')]);
  const state = await openTaskState({
    cwd: input.userCwd ?? input.cwd,
    dir: input.cwd,
    file,
    config: input.config,
    env: input.env,
    redact: input.redact,
    clock: input.deps.clock,
    log: input.deps.log,
  });
  try {
    if (input.flags.dryRun) {
      const { planTaskDryRun, renderTaskDryRun } = await import('./task-status.js');
      const plan = await planTaskDryRun(state, input.config, input.deps.clock.now());
      input.stdout(input.flags.json ? `${terminalJson(plan, undefined, 2)}\n` : renderTaskDryRun(plan));
      return EXIT.ok;
    }
    return await tasks.runTasks({
      env: input.env,
      config: input.config,
      deps: input.deps,
      redact: input.redact,
      interrupt: input.interrupt,
      state,
      json: input.flags.json === true,
      stdout: input.stdout,
      ...(maxRounds !== undefined ? { maxRounds } : {}),
      ...(input.progress ? { progress: input.progress } : {}),
      ...(input.labels ? { labels: input.labels } : {}),
      ...(input.fetch ? { fetch: input.fetch } : {}),
    });
  } finally {
    await state.claims.close();
  }
}
