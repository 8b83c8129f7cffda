import type { Command } from 'commander';
import { terminalJson } from '../core/terminal-text.js';
import type { ExitCode } from '../run/exit-codes.js';
import { type CommandIo, configured, loadOptions } from './command-io.js';

/**
 * `issueloop doctor` and `issueloop init`: checking a setup, and making one. Both find the repository
 * and the token as `run` does (run/github-target.ts), `gh auth token` included.
 */
export function addSetupCommands(
  program: Command,
  io: CommandIo,
  version: string,
  setExit: (code: ExitCode) => void,
): void {
  /** doctor's input: the repository and the credential found as `run` finds them, `gh` included. */
  const doctorInput = (command: Command) => ({
    ...loadOptions(io, command),
    version,
    nodeVersion: io.nodeVersion,
    binPath: io.binPath,
    gh: true,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });

  program
    .command('doctor')
    .description('check Node, git, the configuration and which credentials are set (never their values)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const [{ runDoctor }, { renderDoctor, doctorExitCode }] = await Promise.all([
        import('./commands/doctor.js'),
        import('./commands/doctor-report.js'),
      ]);
      const report = await runDoctor(doctorInput(command));
      io.stdout(options.json ? `${terminalJson(report, undefined, 2)}\n` : renderDoctor(report));
      setExit(doctorExitCode(report));
    });

  program
    .command('init')
    .description('set up a checkout: write issueloop.config.yaml, create the labels on GitHub, run doctor')
    .option(
      '--force',
      'replace an existing issueloop.config.yaml with the template (without it, init keeps yours)',
    )
    .option('--no-labels', 'do not create the labels on GitHub')
    .action(async (options: { force?: boolean; labels?: boolean }, command: Command) => {
      const [{ writeConfigFile, ensureLabels }, { runDoctor }, { renderDoctor, doctorExitCode }] =
        await Promise.all([
          import('./commands/init.js'),
          import('./commands/doctor.js'),
          import('./commands/doctor-report.js'),
        ]);
      const configPath = command.optsWithGlobals<{ config?: string }>().config;
      io.stdout(`${await writeConfigFile(io.cwd, options.force === true, configPath)}\n`);
      if (options.labels !== false) {
        const { config, redact, deps, env } = await configured(io, command, true, undefined, { token: true });
        const spacing = io.githubWriteSpacingMs;
        const labels = await ensureLabels({
          env,
          config,
          cwd: io.cwd,
          log: deps.log,
          redact,
          version,
          ...(spacing !== undefined ? { writeSpacingMs: spacing } : {}),
          ...(io.fetch ? { fetch: io.fetch } : {}),
        });
        io.stdout(`${labels}\n`);
      }
      const report = await runDoctor(doctorInput(command));
      io.stdout(renderDoctor(report));
      setExit(doctorExitCode(report));
    });
}
