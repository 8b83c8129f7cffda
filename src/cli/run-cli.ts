import { Command, CommanderError, Option } from 'commander';
import type { OpenedClaimStore } from '../claims/open-claim-store.js';
import type { LoadConfigOptions } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { systemClock } from '../core/clock.js';
import type { Log } from '../core/logger.js';
import { createRedactor, type Redactor } from '../core/redact.js';
import type { BoardInitFlags } from './board-commands.js';
import { EXIT, type ExitCode, exitCodeFor } from './exit-codes.js';
import type { RunFlags } from './run-command.js';
import { secretsFromEnv } from './secrets.js';
import { readVersion } from './version.js';

/** Everything the CLI touches of its process, passed in so tests can run it in-process too. */
export interface CliIo {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  nodeVersion: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Asks a yes/no question of a person at a terminal; absent when stdin is not a terminal. */
  confirm?: (question: string) => Promise<boolean>;
  /** Aborted on SIGINT / SIGTERM: a run stops claiming and saves its sessions' state. */
  interrupt?: AbortSignal;
  /** Injected by in-process tests; the real fetch otherwise. */
  fetch?: typeof fetch;
  /** stderr is a terminal: live progress lines instead of log lines. */
  isTTY?: boolean;
  /** GitHub write pacing (1 s by default, GitHub's advice); the demo's emulator needs none. */
  githubWriteSpacingMs?: number;
}

/** The CLI's io plus a way for a command to widen output redaction once it has read the config. */
interface CommandIo extends CliIo {
  /** Widens output redaction to these variables too, and returns the widened redactor. */
  redactAlso(envNames: readonly string[]): Redactor;
}

interface GlobalOptions {
  config?: string;
  repo?: string;
  set?: string[];
}

const HELP_FOOTER = `
Environment:
  GITHUB_TOKEN / GH_TOKEN    GitHub token (classic: repo scope, + project for Projects v2)
  ANTHROPIC_API_KEY          Anthropic API key
  GITHUB_API_URL             REST base (default https://api.github.com; set by Actions and GHES)
  GITHUB_GRAPHQL_URL         GraphQL endpoint (default <GITHUB_API_URL>/graphql)
  ANTHROPIC_BASE_URL         Anthropic API base URL
  ISSUELOOP_CONFIG           config file path (like --config)
  ISSUELOOP_<SETTING>        any setting, sections joined by "__" (ISSUELOOP_CLAIMS__TTL=45m)

Exit codes:
  0 finished   1 run-level failure   2 bad usage or configuration   130 interrupted
`;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function loadOptions(io: CommandIo, command: Command): LoadConfigOptions {
  const globals = command.optsWithGlobals<GlobalOptions>();
  return {
    cwd: io.cwd,
    env: io.env,
    sets: globals.set ?? [],
    flags: { repo: globals.repo === undefined ? undefined : { value: globals.repo, flag: '--repo' } },
    ...(globals.config === undefined ? {} : { configPath: globals.config }),
  };
}

/** The configured claim store; a bad configuration throws ConfigError (exit 2) before anything is read. */
async function openStore(
  io: CommandIo,
  command: Command,
): Promise<{ opened: OpenedClaimStore; config: Config }> {
  // Loaded on demand, like every command's code: `issueloop --help` stays fast.
  const [{ loadConfig }, { openClaimStore }] = await Promise.all([
    import('../config/load-config.js'),
    import('../claims/open-claim-store.js'),
  ]);
  const { config } = await loadConfig(loadOptions(io, command));
  const redact = io.redactAlso(config.redact_env);
  return { opened: openClaimStore(config, { cwd: io.cwd, clock: systemClock, redact }), config };
}

/** The configuration, the output redactor widened by it, and the process deps, for a command that works. */
async function configured(
  io: CommandIo,
  command: Command,
  quietInfo = false,
  write: (line: string) => void = io.stderr,
) {
  const [{ loadConfig }, { createProcessDeps }] = await Promise.all([
    import('../config/load-config.js'),
    import('./process-deps.js'),
  ]);
  const { config } = await loadConfig(loadOptions(io, command));
  const redact = io.redactAlso(config.redact_env);
  const deps = await createProcessDeps({
    env: io.env,
    // A one-shot command's progress lines would only repeat its report.
    level: quietInfo && config.log_level === 'info' ? 'warn' : config.log_level,
    isTTY: false,
    write,
    redactEnv: config.redact_env,
  });
  return { config, redact, deps };
}

function addClaimsCommands(program: Command, io: CommandIo): void {
  const claims = program
    .command('claims')
    .description('show and manage leases and failure history (default: list them)');
  claims
    .command('list', { isDefault: true })
    .description('list claimed and failing issues: owner, time left, failures, last reason')
    .option('--json', 'print the records as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { opened, config } = await openStore(io, command);
      const { listClaims } = await import('./claims-commands.js');
      io.stdout(
        await listClaims(opened, config.claims.max_failures, systemClock.now(), options.json === true),
      );
    });
  claims
    .command('release <issue>')
    .description("end an issue's lease now (its worker stops at its next renewal)")
    .action(async (issue: string, _options: unknown, command: Command) => {
      const { parseIssueArg, releaseClaim } = await import('./claims-commands.js');
      const number = parseIssueArg(issue);
      io.stdout(await releaseClaim((await openStore(io, command)).opened, number));
    });
  claims
    .command('reset-failures <issue>')
    .description('forget the failures of an issue so it is worked again (clears "needs human")')
    .action(async (issue: string, _options: unknown, command: Command) => {
      const { parseIssueArg, resetFailures } = await import('./claims-commands.js');
      const number = parseIssueArg(issue);
      io.stdout(await resetFailures((await openStore(io, command)).opened, number));
    });
  program
    .command('reset')
    .description('clear all leases and failure history, after a confirmation')
    .option('--claims', 'reset only the claim store (today the only state reset clears)')
    .option('-y, --yes', 'do not ask (for scripts)')
    .action(async (options: { claims?: boolean; yes?: boolean }, command: Command) => {
      const { opened } = await openStore(io, command);
      const { resetClaims } = await import('./claims-commands.js');
      io.stdout(
        await resetClaims({
          opened,
          now: systemClock.now(),
          yes: options.yes === true,
          ...(io.confirm ? { confirm: io.confirm } : {}),
        }),
      );
    });
}

function addBoardCommands(
  program: Command,
  io: CommandIo,
  version: string,
  setExitCode: (code: ExitCode) => void,
): void {
  const board = program
    .command('board')
    .description('the GitHub Projects v2 board issueloop moves issues across');
  board
    .command('init')
    .description('find (or create) the board and report, or add, the status options issueloop needs')
    .option('--create', 'create the project when it does not exist')
    .option('--title <title>', 'project title (to find or create it by title)')
    .option('--owner <login>', 'user or organisation owning the project (default: project.owner)')
    .option('--force', 'add missing options even when the board has items (resets their status)')
    .option('--json', 'print the report as JSON')
    .action(async (flags: BoardInitFlags, command: Command) => {
      const { runBoardInit } = await import('./board-commands.js');
      const { config, redact, deps } = await configured(io, command, true);
      const result = await runBoardInit({
        env: io.env,
        cwd: io.cwd,
        config,
        flags,
        log: deps.log,
        redact,
        version,
      });
      io.stdout(result.output);
      setExitCode(result.exitCode);
    });
}

function addRunCommand(program: Command, io: CommandIo, version: string, setExit: (code: ExitCode) => void) {
  program
    .command('run')
    .description('work the backlog round after round until it stays empty, then print a summary')
    .option('--dry-run', 'show what the next round would claim and why the rest is skipped; write nothing')
    .option('--once', 'run a single round')
    .option('--max-rounds <n>', 'stop after this many rounds')
    .option('--json', 'print the summary as JSON')
    .action(async (flags: RunFlags, command: Command) => {
      const [{ runRun }, { createProgressDisplay }] = await Promise.all([
        import('./run-command.js'),
        import('./progress-display.js'),
      ]);
      let log: Log | undefined;
      const progress = createProgressDisplay({
        isTTY: io.isTTY === true && flags.json !== true,
        write: io.stderr,
        log: () => log,
        now: () => systemClock.now(),
      });
      const { config, redact, deps } = await configured(io, command, false, progress.writeLog);
      log = deps.log;
      const code = await runRun({
        env: io.env,
        cwd: io.cwd,
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
}

function buildProgram(io: CommandIo, setExit: (code: ExitCode) => void): Command {
  const version = readVersion();
  const program = new Command('issueloop')
    .description('Drain a GitHub issue backlog with autonomous Claude agent sessions.')
    .version(version, '-V, --version', 'print the version')
    .addOption(
      new Option(
        '-c, --config <path>',
        'config file (default: issueloop.config.yaml in the current directory)',
      ),
    )
    .addOption(new Option('--repo <owner/name>', 'GitHub repository to work on'))
    .addOption(
      new Option(
        '--set <path=value>',
        'override one setting, e.g. --set claims.ttl=45m (repeatable)',
      ).argParser(collect),
    )
    .addHelpText('after', HELP_FOOTER)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command('demo')
    .description('try it: a real run against local GitHub and model emulators; no credentials needed')
    .option('--keep', 'keep the temporary repository and print where it is')
    .option('--json', "print the run's summary as JSON (the demo's story goes to stderr)")
    .action(async (flags: { keep?: boolean; json?: boolean }) => {
      const { runDemo } = await import('./demo-command.js');
      const { env, nodeVersion, stdout, stderr, interrupt, isTTY } = io;
      const optional = { ...(interrupt ? { interrupt } : {}), ...(isTTY ? { isTTY } : {}) };
      setExit(await runDemo({ flags, env, nodeVersion, stdout, stderr, ...optional }));
    });

  program
    .command('doctor')
    .description('check Node, git, the configuration and which credentials are set (never their values)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { runDoctor, renderDoctor, doctorExitCode } = await import('./doctor.js');
      const report = await runDoctor({ ...loadOptions(io, command), version, nodeVersion: io.nodeVersion });
      io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctor(report));
      setExit(doctorExitCode(report));
    });

  addRunCommand(program, io, version, setExit);
  program
    .command('status')
    .description('the last run (per issue: outcome, PR, cost, time), live leases, and what needs a human')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { opened, config } = await openStore(io, command);
      const [{ readStatus, renderStatus }, { stateDirOf }] = await Promise.all([
        import('./status-command.js'),
        import('./github-deps.js'),
      ]);
      const now = systemClock.now();
      const report = await readStatus(stateDirOf(config, io.cwd), await opened.store.list(), now);
      io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderStatus(report, now));
    });
  addClaimsCommands(program, io);
  addBoardCommands(program, io, version, setExit);

  // Subcommands inherit exitOverride and the output streams from the program when created after them.
  return program;
}

/** Runs one CLI invocation and returns its exit code; never throws, never calls process.exit. */
export async function runCli(rawIo: CliIo): Promise<ExitCode> {
  // Defence in depth: whatever a command prints, the tokens it was given are never part of it.
  let redact = createRedactor(secretsFromEnv(rawIo.env));
  const io: CommandIo = {
    ...rawIo,
    stdout: (text) => rawIo.stdout(redact(text)),
    stderr: (text) => rawIo.stderr(redact(text)),
    redactAlso: (names) => {
      redact = createRedactor(secretsFromEnv(rawIo.env, names));
      return redact;
    },
  };
  let exitCode: ExitCode = EXIT.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...io.argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`issueloop: ${message}\n`);
    return exitCodeFor(err);
  }
}
