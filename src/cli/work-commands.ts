import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { Config } from '../config/schema.js';
import { systemClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import { terminalJson } from '../core/terminal-text.js';
import type { ExitCode } from '../run/exit-codes.js';
import { type CliIo, type CommandIo, configured, openStore } from './command-io.js';
import type { ReportFlags } from './commands/report.js';
import type { RunFlags } from './commands/run.js';

type SetExit = (code: ExitCode) => void;

/**
 * `issueloop demo`: listed first, it is the way in. The demo runs the real CLI, which it is handed
 * (`runCli`) rather than imports, so the CLI and its commands form no import cycle.
 */
export function addDemoCommand(
  program: Command,
  io: CommandIo,
  setExit: SetExit,
  runCli: (io: CliIo) => Promise<ExitCode>,
): void {
  program
    .command('demo')
    .description('try it: a real run against local GitHub and model emulators; no credentials needed')
    .option('--keep', 'keep the temporary repository and print where it is')
    .option(
      '--json',
      "print its three runs' summaries and ledger paths as one JSON document (the story goes to stderr)",
    )
    .action(async (flags: { keep?: boolean; json?: boolean }, command: Command) => {
      const { runDemo, demoGlobalFlags } = await import('./commands/demo/demo-command.js');
      const logFlags = demoGlobalFlags(command.optsWithGlobals(), io);
      const { env, nodeVersion, stdout, interrupt, isTTY, noCursor, color, columns, onResize } = io;
      const optional = {
        ...(color === undefined ? {} : { color }),
        ...(columns ? { columns } : {}),
        ...(onResize ? { onResize } : {}),
        ...(interrupt ? { interrupt } : {}),
        ...(isTTY ? { isTTY } : {}),
        ...(noCursor ? { noCursor } : {}),
      };
      // The demo's own run writes its log colours and live lines through this; it cleans its text itself.
      const stderr = io.terminal;
      setExit(await runDemo({ flags, env, nodeVersion, stdout, stderr, runCli, logFlags, ...optional }));
    });
}

/** `issueloop run`, `status` and `report`: working the backlog and looking at what it did. */
export function addWorkCommands(program: Command, io: CommandIo, version: string, setExit: SetExit): void {
  program
    .command('run')
    .description('work the backlog round after round until it stays empty, then print a summary')
    .option('--dry-run', 'show what the next round would claim and why the rest is skipped; write nothing')
    .addOption(new Option('--once', 'run a single round').conflicts(['maxRounds', 'dryRun']))
    .addOption(new Option('--max-rounds <n>', 'stop after this many rounds').conflicts('dryRun'))
    .option(
      '--tasks <file>',
      'work a local task file ("## Group" headings, "- task" items) instead of GitHub issues',
    )
    .option('--dir <checkout>', 'the checkout to work in (default: the current directory)')
    .addOption(
      new Option(
        '--issue <n>',
        'work this issue now, labelled or not, through the trust gate; repeatable; ends when they are done',
      )
        .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
        .conflicts(['tasks']),
    )
    .option('--json', 'print the summary as JSON')
    .action(async (flags: RunFlags, command: Command) => {
      const [{ runRun }, { createProgressDisplay }] = await Promise.all([
        import('./commands/run.js'),
        import('../run/progress-display.js'),
      ]);
      let log: Log | undefined;
      const labels = new Map<number, string>();
      const progress = createProgressDisplay({
        isTTY: io.isTTY === true && io.noCursor !== true && flags.json !== true,
        write: io.terminal,
        log: () => log,
        now: () => systemClock.now(),
        ...(io.columns ? { columns: io.columns } : {}),
        ...(io.onResize ? { onResize: io.onResize } : {}),
        ...(flags.tasks
          ? {
              label: (n: number) => labels.get(n) ?? `#${n}`,
              fields: (n: number) => ({ task: Number(labels.get(n)?.replace(/^task /, '')) || n }),
            }
          : {}),
      });
      const at = inDir(io, flags.dir);
      // A task file needs no GitHub: no repository or token is looked for.
      const github = flags.tasks === undefined ? { token: true } : undefined;
      const { config, redact, deps, env } = await configured(at, command, false, progress.writeLog, github);
      log = deps.log;
      const code = await runRun({
        labels,
        env,
        cwd: at.cwd,
        userCwd: io.cwd,
        config,
        flags,
        deps: io.fetch ? { ...deps, fetch: io.fetch } : deps,
        redact,
        version,
        interrupt: io.interrupt ?? new AbortController().signal,
        ...(io.githubWriteSpacingMs !== undefined ? { writeSpacingMs: io.githubWriteSpacingMs } : {}),
        progress,
        stdout: io.stdout,
        ...(io.fetch ? { fetch: io.fetch } : {}),
      });
      setExit(code);
    });
  program
    .command('status')
    .description(
      'the last run (per issue: outcome, PR, cost, time), outcomes of the last 30 days, live leases, and what needs a human',
    )
    .option('--tasks <file>', "a task file's tasks: status, attempts, session ids, interrupted context")
    .option('--dir <checkout>', 'the checkout to report on (default: the current directory)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean; tasks?: string; dir?: string }, command: Command) => {
      const at = inDir(io, options.dir);
      if (options.tasks !== undefined) {
        const { config } = await configured(at, command, true);
        const [{ openTaskState }, { readTaskStatus, renderTaskStatus }] = await Promise.all([
          import('./commands/task-files.js'),
          import('./commands/task-status.js'),
        ]);
        const state = await openTaskState(taskInputs(io, at, options.tasks, config));
        const report = await readTaskStatus(state, config, systemClock.now());
        io.stdout(options.json ? `${terminalJson(report, undefined, 2)}\n` : renderTaskStatus(report));
        return;
      }
      const { opened, config } = await openStore(at, command);
      const [{ readStatus, renderStatus }, { stateDirOf }, { readOutcomes }] = await Promise.all([
        import('./commands/status.js'),
        import('../run/github-deps.js'),
        import('../run/read-outcomes.js'),
      ]);
      const now = systemClock.now();
      const [claims, records] = await Promise.all([opened.store.list(), readOutcomes(config, at.cwd)]);
      const report = await readStatus(stateDirOf(config, at.cwd), claims, now, records);
      io.stdout(options.json ? `${terminalJson(report, undefined, 2)}\n` : renderStatus(report, now));
    });
  addReportCommand(program, io);
}

/** `issueloop report`: what the fleet achieved and what it cost (README "Report"). */
function addReportCommand(program: Command, io: CommandIo): void {
  program
    .command('report')
    .description(
      'what the fleet achieved and what it cost: PRs merged, acceptance, dollars per merged PR (see README "Report")',
    )
    .option('--since <duration>', 'the window, back from now: 30d, 7d, 12h (default: 30d)')
    .option('--by <group>', 'a row per label, engine or model (an issue with two labels counts in both)')
    .option('--dir <checkout>', 'the checkout to report on (default: the current directory)')
    .option('--json', 'print the report as JSON')
    .action(async (flags: ReportFlags & { dir?: string }, command: Command) => {
      const at = inDir(io, flags.dir);
      const { reportWindow, runReport } = await import('./commands/report.js');
      reportWindow(flags); // a bad flag is reported before the store is opened
      const { config } = await openStore(at, command);
      const { readOutcomes } = await import('../run/read-outcomes.js');
      const { report, text } = runReport(await readOutcomes(config, at.cwd), flags, systemClock.now());
      io.stdout(flags.json ? `${terminalJson(report, undefined, 2)}\n` : text);
    });
}

/** `--dir <checkout>`: the command works (and finds its config) there; paths the user typed stay relative to where they typed them. */
/** The io of a command run with `--dir`: an existing directory, or a usage error that says what it is. */
export function inDir(io: CommandIo, dir: string | undefined): CommandIo {
  if (dir === undefined) return io;
  const cwd = resolve(io.cwd, dir);
  const info = statSync(cwd, { throwIfNoEntry: false });
  if (!info) throw new UsageError(`--dir ${dir}: no such directory`);
  if (!info.isDirectory())
    throw new UsageError(`--dir ${dir}: a file, not a directory; pass the checkout's directory`);
  return { ...io, cwd };
}

/** What opening a task file's state needs, from the CLI's io. */
export function taskInputs(io: CommandIo, at: CommandIo, file: string, config: Config) {
  return {
    cwd: io.cwd,
    dir: at.cwd,
    file,
    config,
    env: io.env,
    redact: io.redactAlso(config.redact_env),
    clock: systemClock,
  };
}
