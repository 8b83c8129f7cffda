import { Command, CommanderError, Option } from 'commander';
import { createRedactor } from '../core/redact.js';
import { EXIT, type ExitCode, exitCodeFor } from './exit-codes.js';
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

function buildProgram(io: CliIo, setExit: (code: ExitCode) => void): Command {
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
    .command('doctor')
    .description('check Node, git, the configuration and which credentials are set (never their values)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const { runDoctor, renderDoctor, doctorExitCode } = await import('./doctor.js');
      const report = await runDoctor({
        cwd: io.cwd,
        env: io.env,
        sets: globals.set ?? [],
        flags: { repo: globals.repo === undefined ? undefined : { value: globals.repo, flag: '--repo' } },
        version,
        nodeVersion: io.nodeVersion,
        ...(globals.config === undefined ? {} : { configPath: globals.config }),
      });
      io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctor(report));
      setExit(doctorExitCode(report));
    });

  // Subcommands inherit exitOverride and the output streams from the program when created after them.
  return program;
}

/** Runs one CLI invocation and returns its exit code; never throws, never calls process.exit. */
export async function runCli(rawIo: CliIo): Promise<ExitCode> {
  // Defence in depth: whatever a command prints, the tokens it was given are never part of it.
  const redact = createRedactor(secretsFromEnv(rawIo.env));
  const io: CliIo = {
    ...rawIo,
    stdout: (text) => rawIo.stdout(redact(text)),
    stderr: (text) => rawIo.stderr(redact(text)),
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
