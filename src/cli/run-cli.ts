import { Command, CommanderError, Option } from 'commander';
import { closest, distance } from 'fastest-levenshtein';
import { systemClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { createRedactor } from '../core/redact.js';
import { forTerminal, terminalJson } from '../core/terminal-text.js';
import { EXIT, type ExitCode } from '../run/exit-codes.js';
import { secretsFromEnv } from '../run/secrets.js';
import { readVersion } from '../run/version.js';
import { type CliIo, type CommandIo, configured, openStore } from './command-io.js';
import type { BoardInitFlags } from './commands/board.js';
import { addSetupCommands } from './setup-commands.js';
import { addDemoCommand, addWorkCommands, inDir, taskInputs } from './work-commands.js';

export type { CliIo } from './command-io.js';
// main.ts reads how to draw on its terminal from here, in the one import it makes of the CLI.
export { terminalOptions, terminalWidth } from './terminal-options.js';

const HELP_FOOTER = `
Environment:
  GH_TOKEN / GITHUB_TOKEN    GitHub token, GH_TOKEN first as gh takes them; without either, the
                             token of \`gh auth login\` (classic: repo scope, + project for Projects v2)
  GH_REPO                    the repository, as gh takes it (below --repo and ISSUELOOP_REPO, above
                             the config file; without any, the checkout's origin on GitHub)
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
      const { listClaims } = await import('./commands/claims.js');
      io.stdout(
        await listClaims(opened, config.claims.max_failures, systemClock.now(), options.json === true),
      );
    });
  claims
    .command('release <issue>')
    .description("end an issue's lease now (its worker stops at its next renewal)")
    .action(async (issue: string, _options: unknown, command: Command) => {
      const { parseIssueArg, releaseClaim } = await import('./commands/claims.js');
      const number = parseIssueArg(issue);
      io.stdout(await releaseClaim((await openStore(io, command)).opened, number));
    });
  claims
    .command('reset-failures <issue>')
    .description('forget the failures of an issue so it is worked again (clears "needs human")')
    .action(async (issue: string, _options: unknown, command: Command) => {
      const { parseIssueArg, resetFailures } = await import('./commands/claims.js');
      const number = parseIssueArg(issue);
      io.stdout(await resetFailures((await openStore(io, command)).opened, number));
    });
  program
    .command('reset')
    .description(
      'clear all leases and failure history, after a confirmation (outcome history and spend ledger are kept)',
    )
    .addOption(
      new Option('--claims', 'reset only the claim store (today the only state reset clears)').conflicts(
        'tasks',
      ),
    )
    .option('--tasks <file>', "forget a task file's outcomes and conversations instead (its branch stays)")
    .option('--dir <checkout>', 'the checkout whose state to reset (default: the current directory)')
    .option('-y, --yes', 'do not ask (for scripts)')
    .action(
      async (
        options: { claims?: boolean; yes?: boolean; tasks?: string; dir?: string },
        command: Command,
      ) => {
        const at = inDir(io, options.dir);
        if (options.tasks !== undefined) {
          const { config } = await configured(at, command, true);
          const { resetTaskState } = await import('./commands/task-files.js');
          io.stdout(
            await resetTaskState(taskInputs(io, at, options.tasks, config), {
              yes: options.yes === true,
              ...(io.confirm ? { confirm: io.confirm } : {}),
            }),
          );
          return;
        }
        const { opened } = await openStore(at, command);
        const { resetClaims } = await import('./commands/claims.js');
        io.stdout(
          await resetClaims({
            opened,
            now: systemClock.now(),
            yes: options.yes === true,
            ...(io.confirm ? { confirm: io.confirm } : {}),
          }),
        );
      },
    );
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
      const { runBoardInit } = await import('./commands/board.js');
      const { config, redact, deps, env } = await configured(io, command, true, undefined, { token: true });
      const result = await runBoardInit({
        env,
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
    .addOption(
      new Option('-R, --repo <owner/name>', "GitHub repository to work on (default: the checkout's origin)"),
    )
    .addOption(
      new Option(
        '--set <path=value>',
        'override one setting, e.g. --set claims.ttl=45m (repeatable)',
      ).argParser(collect),
    )
    .addOption(
      new Option(
        '--log-format <format>',
        "log lines on stderr: pretty (a terminal's default) or json",
      ).choices(['pretty', 'json']),
    )
    .addOption(new Option('-v, --verbose', 'debug log lines too (log_level: debug)').conflicts('quiet'))
    .addOption(new Option('-q, --quiet', 'warnings and errors only (log_level: warn)'))
    .addHelpText('after', HELP_FOOTER)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  addDemoCommand(program, io, setExit, runCli);
  addSetupCommands(program, io, version, setExit);
  addWorkCommands(program, io, version, setExit);
  addClaimsCommands(program, io);
  addBoardCommands(program, io, version, setExit);

  // Subcommands inherit exitOverride and the output streams from the program when created after them.
  return program;
}

/** `did you mean list?` for a word close to one of `names`. */
function suggestion(word: string, names: readonly string[]): string {
  const near = closest(word, [...names]);
  return near !== undefined && distance(word, near) <= 2 ? ` (did you mean ${near}?)` : '';
}

/**
 * Names commander would not refuse: `help bogus` (it prints the whole help, exit 0) and a mistyped
 * subcommand of a command with a default one (`claims lst` became an argument of `claims list`).
 */
function checkCommandNames(program: Command, argv: readonly string[]): void {
  const names = (command: Command) => command.commands.map((c) => c.name());
  const [first, second] = argv;
  if (
    first === 'help' &&
    second !== undefined &&
    !second.startsWith('-') &&
    !names(program).includes(second)
  ) {
    throw new UsageError(`help: unknown command '${second}'${suggestion(second, names(program))}`);
  }
  const parent = program.commands.find((c) => c.name() === first && c.commands.length > 0);
  if (parent && second !== undefined && !second.startsWith('-') && !names(parent).includes(second)) {
    throw new UsageError(
      `unknown command '${first} ${second}'${suggestion(second, names(parent))}; \`issueloop ${first} --help\` lists them`,
    );
  }
}

/** Runs one CLI invocation and returns its exit code; never throws, never calls process.exit. */
export async function runCli(rawIo: CliIo): Promise<ExitCode> {
  // Defence in depth: whatever a command prints, the tokens it was given are never part of it, and
  // nothing from GitHub, the model or the ledger reaches the terminal as an escape sequence.
  let redact = createRedactor(secretsFromEnv(rawIo.env));
  // Secrets found beside the environment (the token of `gh auth token`): kept across widenings.
  const found = new Set<string>();
  const closers: Array<() => Promise<void>> = [];
  const io: CommandIo = {
    ...rawIo,
    stdout: (text) => rawIo.stdout(forTerminal(redact(text))),
    stderr: (text) => rawIo.stderr(forTerminal(redact(text))),
    terminal: (text) => rawIo.stderr(redact(text)),
    redactAlso: (names, values = []) => {
      for (const value of values) found.add(value);
      redact = createRedactor([...secretsFromEnv(rawIo.env, names), ...found]);
      return redact;
    },
    atExit: (close) => {
      closers.push(close);
    },
  };
  let exitCode: ExitCode = EXIT.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    checkCommandNames(program, io.argv);
    await program.parseAsync([...io.argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    const code =
      err instanceof CommanderError
        ? err.exitCode === 0
          ? EXIT.ok
          : EXIT.usage
        : (await import('../run/exit-code-for.js')).exitCodeFor(err);
    const message = err instanceof Error ? err.message : String(err);
    if (!(err instanceof CommanderError)) io.stderr(`issueloop: ${message}\n`);
    // A script that asked for JSON gets JSON on a failure too, not an empty stdout.
    if (code !== EXIT.ok && io.argv.includes('--json')) {
      io.stdout(
        `${terminalJson({ error: { message: message.replace(/^error: /, ''), exitCode: code } }, undefined, 2)}\n`,
      );
    }
    return code;
  } finally {
    await Promise.allSettled(closers.map((close) => close()));
  }
}
