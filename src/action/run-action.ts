import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { loadConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { UsageError } from '../core/errors.js';
import { createRedactor, type Redactor } from '../core/redact.js';
import { canWrite } from '../github/trust.js';
import { EXIT, type ExitCode, exitCodeFor } from '../run/exit-codes.js';
import { executeRun, type FinishedRun, openRun, openRunBase, type RunBase } from '../run/open-run.js';
import { createProcessDeps } from '../run/process-deps.js';
import { createProgressDisplay, type ProgressDisplay } from '../run/progress-display.js';
import { type Env, secretsFromEnv } from '../run/secrets.js';
import type { RunOptions } from '../scheduler/run-rounds.js';
import { type ActionEvent, type Actor, type Decision, decide } from './event.js';
import { type ActionInputs, botName, OUTPUT_NAMES, readInputs, readTokens } from './inputs.js';
import { createLogging, type Logging } from './log-lines.js';
import {
  type ActionReport,
  actionOutputs,
  failureAnnotations,
  type SummaryWriter,
  writeJobSummary,
} from './report.js';

/** The part of @actions/core the action uses, passed in so tests can record it. */
export interface ActionCore {
  getInput(name: string): string;
  setSecret(secret: string): void;
  setOutput(name: string, value: string): void;
  setFailed(message: string): void;
  notice(message: string, properties?: { title?: string }): void;
  warning(message: string, properties?: { title?: string }): void;
  error(message: string, properties?: { title?: string }): void;
  info(message: string): void;
  startGroup(name: string): void;
  endGroup(): void;
  summary: SummaryWriter & { write(): Promise<unknown> };
}

export interface ActionIo {
  /** The runner's environment (GITHUB_*, RUNNER_*, INPUT_*). */
  env: Env;
  cwd: string;
  core: ActionCore;
  version: string;
  /** The runner cancelling the job (SIGINT, then SIGTERM). */
  interrupt?: AbortSignal;
  fetch?: typeof fetch;
  writeSpacingMs?: number;
}

/**
 * The environment a run gets: the runner's, without the INPUT_* copies of the inputs (they hold
 * the tokens), with the tokens under the names issueloop reads.
 */
export function actionEnv(runner: Env, inputs: ActionInputs): Env {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(runner)) if (!name.startsWith('INPUT_')) env[name] = value;
  if (inputs.githubToken) env.GITHUB_TOKEN = inputs.githubToken;
  if (inputs.projectsToken) env.ISSUELOOP_PROJECTS_TOKEN = inputs.projectsToken;
  if (inputs.anthropicKey) env.ANTHROPIC_API_KEY = inputs.anthropicKey;
  return env;
}

async function readEvent(env: Env): Promise<ActionEvent> {
  const name = env.GITHUB_EVENT_NAME ?? '';
  const path = env.GITHUB_EVENT_PATH;
  if (!name || !path) {
    throw new UsageError(
      'GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: this is the GitHub Action; outside Actions run `issueloop run`',
    );
  }
  try {
    return { name, payload: JSON.parse(await readFile(path, 'utf8')) as unknown };
  } catch (err) {
    throw new UsageError(`cannot read the event payload ${path}: ${(err as Error).message}`);
  }
}

/** Whether the actor who applied the label may start work: write access, or a bot the workflow lists. */
async function gate(base: RunBase, actor: Actor, inputs: ActionInputs): Promise<string | undefined> {
  if (actor.type === 'Bot') {
    if (inputs.allowedBots.includes(botName(actor.login))) return undefined;
    return `the label was applied by the bot ${actor.login}, which is not listed in the allowed_bots input`;
  }
  const permission = await base.github.trustGate().permission(actor.login);
  if (canWrite(permission)) return undefined;
  return `the label was applied by ${actor.login}, whose permission on the repository is "${permission}"; only users with write, maintain or admin access can start issueloop`;
}

function setOutputs(core: ActionCore, report: ActionReport, noWork?: 'skipped' | 'refused'): void {
  const outputs = actionOutputs(report, noWork);
  for (const name of OUTPUT_NAMES) core.setOutput(name, outputs[name]);
}

async function finish(
  io: ActionIo,
  report: ActionReport,
  redact: Redactor,
  noWork?: 'skipped' | 'refused',
): Promise<void> {
  const { core } = io;
  setOutputs(core, report, noWork);
  for (const { title, message } of failureAnnotations(report)) core.error(redact(message), { title });
  // Everything in the summary is redacted again: a token must not reach it even through a title.
  const summary = core.summary;
  const redacting: SummaryWriter = {
    addHeading(text, level) {
      summary.addHeading(redact(text), level);
      return redacting;
    },
    addRaw(text, eol) {
      summary.addRaw(redact(text), eol);
      return redacting;
    },
    addTable(rows) {
      const cell = (c: string | { data: string; header?: boolean }) =>
        typeof c === 'string' ? redact(c) : { ...c, data: redact(c.data) };
      summary.addTable(rows.map((row) => row.map(cell)));
      return redacting;
    },
  };
  writeJobSummary(redacting, report);
  if (io.env.GITHUB_STEP_SUMMARY) await summary.write();
}

/** Drain mode: no claims once too little of the budget is left for a session, a hard stop at its end. */
function budgetOptions(config: Config, budgetMs: number, start: number): Pick<RunOptions, 'claimUntil'> {
  return { claimUntil: start + Math.max(budgetMs - config.session.max_duration, 0) };
}

/**
 * The action: mask the tokens, read the inputs and the event, decide, gate the actor, run, report.
 * Returns the exit code (0 also when nothing was to be done; 2 for bad inputs or config; 1 for a
 * run-level failure; 130 when the runner cancelled the job after state was saved).
 */
export async function runAction(io: ActionIo): Promise<ExitCode> {
  const { core } = io;
  // Before anything can be logged.
  const tokens = readTokens((name) => core.getInput(name));
  for (const token of tokens) core.setSecret(token);
  let redact: Redactor = createRedactor(tokens);
  let logging: Logging | undefined;
  let closeStore: () => Promise<void> = async () => undefined;
  try {
    const inputs = readInputs((name) => core.getInput(name));
    const env = actionEnv(io.env, inputs);
    if (!env.GITHUB_TOKEN) {
      throw new UsageError(
        `input github_token is empty: pass \`github_token: $\{{ github.token }}\` or a PAT`,
      );
    }
    const { config } = await loadConfig({
      cwd: io.cwd,
      env,
      flags: inputs.flags,
      ...(inputs.configPath ? { configPath: inputs.configPath } : {}),
    });
    redact = createRedactor(secretsFromEnv(env, config.redact_env));
    const decision: Decision = decide(await readEvent(env), inputs.mode, config.label);
    const mode = decision.kind === 'issue' ? 'issue' : 'drain';
    const titles = new Map<number, string>();
    const base: ActionReport = {
      mode,
      titles,
      ...(decision.kind === 'issue' ? { issue: decision.issue } : {}),
    };
    if (decision.kind === 'skip') {
      core.notice(`issueloop: nothing to do: ${decision.why}`);
      await finish(io, { ...base, notice: `Nothing to do: ${decision.why}.` }, redact, 'skipped');
      return EXIT.ok;
    }
    if (decision.kind === 'drain' && inputs.timeBudgetMs <= config.session.max_duration) {
      throw new UsageError(
        `input time_budget (${Math.round(inputs.timeBudgetMs / 60_000)}m) leaves no room for a session of session.max_duration (${Math.round(config.session.max_duration / 60_000)}m): raise time_budget or lower session.max_duration`,
      );
    }
    if (!env.ANTHROPIC_API_KEY) {
      throw new UsageError(
        `input anthropic_api_key is empty: pass \`anthropic_api_key: $\{{ secrets.ANTHROPIC_API_KEY }}\``,
      );
    }

    logging = createLogging(core);
    const deps = await createProcessDeps({
      env,
      level: config.log_level,
      isTTY: false,
      write: logging.write,
      redactEnv: config.redact_env,
    });
    const interrupt = new AbortController();
    const groups = logging.groups;
    // The CLI's progress lines for a log that is not a terminal: every phase, a heartbeat while one lasts.
    let display: ProgressDisplay | undefined;
    const runInput = {
      env,
      cwd: io.cwd,
      config,
      deps: io.fetch ? { ...deps, fetch: io.fetch } : deps,
      redact,
      version: io.version,
      interrupt: interrupt.signal,
      progress: {
        started: (issue: number, title: string) => {
          titles.set(issue, title);
          groups.begin(issue, title);
        },
        phase: (issue: number, phase: Parameters<ProgressDisplay['phase']>[1]) =>
          display?.phase(issue, phase),
        event: (issue: number, event: Parameters<ProgressDisplay['event']>[1]) =>
          display?.event(issue, event),
        done: (issue: number, outcome: string) => {
          display?.done(issue, outcome);
          groups.end(issue, `#${issue}: ${outcome}`);
        },
      },
      ...(io.fetch ? { fetch: io.fetch } : {}),
      ...(io.writeSpacingMs !== undefined ? { writeSpacingMs: io.writeSpacingMs } : {}),
    };
    const runBase = await openRunBase(runInput);
    closeStore = () => runBase.claims.close();

    if (decision.kind === 'issue') {
      titles.set(decision.issue, decision.title);
      const refused = await gate(runBase, decision.actor, inputs);
      if (refused) {
        core.notice(`issueloop: #${decision.issue} not worked: ${refused}`);
        await finish(
          io,
          { ...base, notice: `#${decision.issue} was not worked: ${refused}.` },
          redact,
          'refused',
        );
        return EXIT.ok;
      }
    }

    display = createProgressDisplay({
      isTTY: false,
      write: logging.write,
      log: () => deps.log,
      now: () => deps.clock.now(),
    });
    const onCancel = () => interrupt.abort(io.interrupt?.reason ?? new Error('cancelled'));
    if (io.interrupt?.aborted) onCancel();
    io.interrupt?.addEventListener('abort', onCancel, { once: true });
    const start = deps.clock.now();
    let budgetSpent = false;
    const hardStop =
      decision.kind === 'drain'
        ? setTimeout(() => {
            budgetSpent = true;
            interrupt.abort(new Error('time budget spent'));
          }, inputs.timeBudgetMs)
        : undefined;
    hardStop?.unref();
    let finished: FinishedRun;
    try {
      const run = await openRun(runInput, runBase);
      const owner = `${env.GITHUB_RUN_ID ? `actions:${env.GITHUB_RUN_ID}` : hostname()}:${process.pid}`;
      finished = await executeRun(
        run,
        decision.kind === 'issue'
          ? { owner, only: decision.issue, maxRounds: 1 }
          : { owner, ...budgetOptions(config, inputs.timeBudgetMs, start) },
      );
    } finally {
      if (hardStop) clearTimeout(hardStop);
      io.interrupt?.removeEventListener('abort', onCancel);
      display.stop();
      groups.close();
    }
    if (budgetSpent && finished.summary.stop === 'interrupted') {
      core.warning(
        'issueloop: the time budget ran out; the sessions still running were interrupted and their state saved',
      );
      finished = { ...finished, summary: { ...finished.summary, stop: 'time_budget' } };
    }
    const report: ActionReport = { ...base, run: finished };
    const mine = finished.summary.skipped.find((s) => s.issue === base.issue);
    if (decision.kind === 'issue' && finished.summary.reports.length === 0) {
      const why = mine
        ? mine.why
        : 'it is not in the backlog (closed, a pull request, or carrying an excluded label)';
      core.notice(`issueloop: #${decision.issue} not worked: ${why}`);
      report.notice = `#${decision.issue} was not worked: ${why}.`;
    }
    await finish(io, report, redact);
    // Cancelled by the runner: state is saved; the time budget ending a drain is not a failure.
    return finished.summary.stop === 'interrupted' && io.interrupt?.aborted ? EXIT.interrupted : EXIT.ok;
  } catch (err) {
    logging?.groups.close();
    const code = exitCodeFor(err);
    core.setFailed(redact(`issueloop: ${(err as Error).message}`));
    return code;
  } finally {
    // A Redis store's connection would keep the process alive.
    await closeStore().catch(() => undefined);
  }
}
