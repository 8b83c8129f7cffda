import { hostname } from 'node:os';
import { loadConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { UsageError } from '../core/errors.js';
import { createRedactor, type Redactor } from '../core/redact.js';
import { exitCodeFor } from '../run/exit-code-for.js';
import { EXIT, type ExitCode } from '../run/exit-codes.js';
import { executeRun, type FinishedRun, type OpenRunInput, openRun, openRunBase } from '../run/open-run.js';
import type { OutcomeReport } from '../run/outcome-report.js';
import { createProcessDeps } from '../run/process-deps.js';
import { createProgressDisplay } from '../run/progress-display.js';
import type { Env } from '../run/secrets.js';
import { finish } from './action-finish.js';
import type { ActionIo } from './action-io.js';
import { actionEnv, budgetOptions, gate, readEvent, runnerRedactor } from './action-setup.js';
import { commandIssue, commandNotice, commandRunInput } from './command-event.js';
import { type Decision, decide } from './event.js';
import { type ActionInputs, readInputs, readTokens } from './inputs.js';
import { createLogging, type Logging, progressWiring } from './log-lines.js';
import { actionOutcomes } from './outcome-summary.js';
import type { ActionReport } from './report.js';
import { announceRoute } from './token-route.js';

export type { ActionCore, ActionIo } from './action-io.js';
export { actionEnv } from './action-setup.js';

/** What the inputs, the configuration and the event decided, before anything runs. */
interface ActionSetup {
  inputs: ActionInputs;
  env: Env;
  config: Config;
  redact: Redactor;
  decision: Decision;
  /** Each worked issue's title, for the summary; filled as the run goes. */
  titles: Map<number, string>;
  base: ActionReport;
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
    const setup = await readSetup(io, (widened) => {
      redact = widened;
    });
    const { decision, base } = setup;
    if (decision.kind === 'skip') return await skipped(io, base, decision.why, redact);
    checkRunInputs(setup);
    logging = createLogging(core);
    const deps = await createProcessDeps({
      env: setup.env,
      level: setup.config.log_level,
      isTTY: false,
      write: logging.write,
      redactEnv: setup.config.redact_env,
    });
    const interrupt = new AbortController();
    const progress = progressWiring(logging, setup.titles);
    const runInput: OpenRunInput = {
      env: setup.env,
      cwd: io.cwd,
      config: setup.config,
      deps: io.fetch ? { ...deps, fetch: io.fetch } : deps,
      redact,
      version: io.version,
      interrupt: interrupt.signal,
      progress: progress.sink,
      ...(io.fetch ? { fetch: io.fetch } : {}),
      ...(io.writeSpacingMs !== undefined ? { writeSpacingMs: io.writeSpacingMs } : {}),
      // A PR's event is not someone asking for a first attempt: follow-ups only.
      ...(decision.kind === 'issue' && decision.pullEvent !== undefined ? { followUpsOnly: true } : {}),
      // A command's event: that command, and (for retry) the issue's work, nothing else.
      ...(decision.kind === 'issue' && decision.command ? commandRunInput(decision.command) : {}),
    };
    const runBase = await openRunBase(runInput);
    closeStore = () => runBase.close();
    base.route = await announceRoute(core, {
      app: setup.inputs.app !== undefined,
      config: setup.config,
      lastsMs: decision.kind === 'drain' ? setup.inputs.timeBudgetMs : setup.config.session.max_duration,
      viewer: () => runBase.github.reviewThreads.viewer(),
    });
    // A PR's event is not someone vouching for work: the sweep's own trust rules apply.
    if (decision.kind === 'issue' && decision.pullEvent === undefined) {
      if (!decision.command?.onPull) setup.titles.set(decision.issue, decision.title);
      const refused = await gate(
        runBase,
        decision.actor,
        setup.inputs,
        decision.command ? 'command' : 'label',
      );
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
      if (decision.command) {
        // On a PR: its issue, read now (the payload has no head ref); someone else's PR is no work.
        const found = await commandIssue(runBase, { ...decision, command: decision.command });
        if (found.kind === 'skip') return await skipped(io, base, found.why, redact);
        setup.decision = found;
        base.issue = found.issue;
      }
    }
    progress.show(
      createProgressDisplay({
        isTTY: false,
        write: logging.write,
        log: () => deps.log,
        now: () => deps.clock.now(),
      }),
    );
    const { finished, budgetSpent } = await runWithinBudget(
      io,
      setup,
      interrupt,
      () => deps.clock.now(),
      async (options) => executeRun(await openRun(runInput, runBase), options),
    ).finally(() => {
      progress.stop();
    });
    const outcomes = await actionOutcomes(setup.config, io.cwd, deps.clock.now(), (m) =>
      core.warning(redact(m)),
    );
    return await reportFinished(io, setup, budgetSpent ? budgetRanOut(io, finished) : finished, outcomes);
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

/** A green run without work: a notice says why. */
async function skipped(io: ActionIo, base: ActionReport, why: string, redact: Redactor): Promise<ExitCode> {
  io.core.notice(`issueloop: nothing to do: ${why}`);
  await finish(io, { ...base, notice: `Nothing to do: ${why}.` }, redact, 'skipped');
  return EXIT.ok;
}

/**
 * The inputs (github_token checked first), the configuration with them, the event and its decision.
 * Output redaction widens to every secret of the environment as soon as the configuration is read,
 * before anything else can fail.
 */
async function readSetup(io: ActionIo, onRedactor: (redact: Redactor) => void): Promise<ActionSetup> {
  const inputs = readInputs((name) => io.core.getInput(name));
  const env = actionEnv(io.env, inputs);
  if (!env.GITHUB_TOKEN && !inputs.app) {
    throw new UsageError(
      `input github_token is empty: pass \`app_id\` and \`app_private_key\` (a GitHub App), or \`github_token: $\{{ github.token }}\` or a PAT`,
    );
  }
  const { config } = await loadConfig({
    cwd: io.cwd,
    env,
    flags: inputs.flags,
    ...(inputs.configPath ? { configPath: inputs.configPath } : {}),
  });
  const redact = runnerRedactor(io, env, config.redact_env);
  onRedactor(redact);
  const decision = decide(await readEvent(env), inputs.mode, config.label);
  const titles = new Map<number, string>();
  const base: ActionReport = {
    mode: decision.kind === 'issue' ? 'issue' : 'drain',
    titles,
    ...(decision.kind === 'issue' ? { issue: decision.issue } : {}),
  };
  return { inputs, env, config, redact, decision, titles, base };
}

/** What a run needs beyond a decision: room in the time budget for a session, a model key. */
function checkRunInputs({ decision, inputs, config, env }: ActionSetup): void {
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
}

/**
 * The run, cancelled with the job (state saved) and, in drain mode, stopped by the time budget: no
 * claims once too little is left for a session, a hard stop at its end (reported as `time_budget`).
 */
async function runWithinBudget(
  io: ActionIo,
  { decision, inputs, config, env }: ActionSetup,
  interrupt: AbortController,
  now: () => number,
  execute: (options: Parameters<typeof executeRun>[1]) => Promise<FinishedRun>,
): Promise<{ finished: FinishedRun; budgetSpent: boolean }> {
  const onCancel = () => interrupt.abort(io.interrupt?.reason ?? new Error('cancelled'));
  if (io.interrupt?.aborted) onCancel();
  io.interrupt?.addEventListener('abort', onCancel, { once: true });
  const start = now();
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
    const owner = `${env.GITHUB_RUN_ID ? `actions:${env.GITHUB_RUN_ID}` : hostname()}:${process.pid}`;
    finished = await execute(
      decision.kind === 'issue'
        ? { owner, only: decision.issue, maxRounds: 1 }
        : { owner, ...budgetOptions(config, inputs.timeBudgetMs, start) },
    );
  } finally {
    if (hardStop) clearTimeout(hardStop);
    io.interrupt?.removeEventListener('abort', onCancel);
  }
  return { finished, budgetSpent };
}

/** A drain the time budget stopped: not a failure, and said once the log groups are closed. */
function budgetRanOut(io: ActionIo, finished: FinishedRun): FinishedRun {
  if (finished.summary.stop !== 'interrupted') return finished;
  io.core.warning(
    'issueloop: the time budget ran out; the sessions still running were interrupted and their state saved',
  );
  return { ...finished, summary: { ...finished.summary, stop: 'time_budget' } };
}

/** The run's report (an issue it did not work says why); 130 when the runner cancelled the job. */
async function reportFinished(
  io: ActionIo,
  setup: ActionSetup,
  finished: FinishedRun,
  outcomes?: OutcomeReport,
): Promise<ExitCode> {
  const { decision, base, redact } = setup;
  const report: ActionReport = { ...base, run: finished, ...(outcomes ? { outcomes } : {}) };
  const mine = finished.summary.skipped.find((s) => s.issue === base.issue);
  if (decision.kind === 'issue' && decision.command) {
    // A retry worked in this job has the run's report; anything else says what happened.
    const said = commandNotice({ ...decision, command: decision.command }, finished.summary);
    if (said !== undefined) {
      io.core.notice(`issueloop: ${said}`);
      report.notice = `${said}.`;
    }
  } else if (
    decision.kind === 'issue' &&
    decision.pullEvent !== undefined &&
    finished.summary.reports.length === 0
  ) {
    // Merged, closed, checks green or pending: the sweep did what the PR needed without a session.
    io.core.notice(`issueloop: #${decision.issue}'s pull request (${decision.pullEvent}) needed no session`);
    report.notice = `#${decision.issue}'s pull request needed no session after ${decision.pullEvent}.`;
  } else if (decision.kind === 'issue' && finished.summary.reports.length === 0) {
    const why = mine
      ? mine.why
      : 'it is not in the backlog (closed, a pull request, or carrying an excluded label)';
    io.core.notice(`issueloop: #${decision.issue} not worked: ${why}`);
    report.notice = `#${decision.issue} was not worked: ${why}.`;
  }
  await finish(io, report, redact);
  // Cancelled by the runner: state is saved; the time budget ending a drain is not a failure.
  return finished.summary.stop === 'interrupted' && io.interrupt?.aborted ? EXIT.interrupted : EXIT.ok;
}
