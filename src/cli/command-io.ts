import type { Command } from 'commander';
import type { OpenedClaimStore } from '../claims/open-claim-store.js';
import type { LoadConfigOptions, LoadedConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { systemClock } from '../core/clock.js';
import type { LogLevel } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import type { GitHubTarget } from '../run/github-target.js';
import { createWarningLog } from './warning-log.js';

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
  /** stderr is a terminal: readable log lines, and live progress lines unless `noCursor`. */
  isTTY?: boolean;
  /** The terminal cannot move its cursor (TERM=dumb): no live lines, no escape sequences. */
  noCursor?: boolean;
  /** Colours in readable log lines (off under NO_COLOR and TERM=dumb). */
  color?: boolean;
  /** The terminal's width in columns, read when needed: live lines are cut to it. */
  columns?: () => number | undefined;
  /** Calls `listener` when the terminal is resized; returns how to stop. */
  onResize?: (listener: () => void) => () => void;
  /** How the executable was started (argv[1]): doctor says when that is not by its name on PATH. */
  binPath?: string;
  /** GitHub write pacing (1 s by default, GitHub's advice); the demo's emulator needs none. */
  githubWriteSpacingMs?: number;
}

/** The CLI's io plus a way for a command to widen output redaction once it has read the config. */
export interface CommandIo extends CliIo {
  /**
   * Widens output redaction to these variables too (and to `values`, secrets found elsewhere, such
   * as the token of `gh auth token`), and returns the widened redactor.
   */
  redactAlso(envNames: readonly string[], values?: readonly string[]): Redactor;
  /** Runs `close` when the command ends, however it ends (a Redis store's connection). */
  atExit(close: () => Promise<void>): void;
  /**
   * stderr for issueloop's own escape sequences (log colours, live progress lines): redacted but not
   * cleaned, so only text its writer made safe goes here. `stdout` and `stderr` strip every escape
   * sequence, control and bidi character (core/terminal-text.ts).
   */
  terminal(text: string): void;
}

interface GlobalOptions {
  config?: string;
  repo?: string;
  set?: string[];
  logFormat?: 'pretty' | 'json';
  verbose?: boolean;
  quiet?: boolean;
}

/**
 * How log lines look: readable on a terminal, JSON lines for a pipe, CI or a file, unless
 * `--log-format` says otherwise. `--verbose` and `--quiet` move the configured level.
 */
export function logStyle(
  io: Pick<CliIo, 'isTTY'>,
  command: Command,
  configured: LogLevel,
): { pretty: boolean; level: LogLevel } {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const pretty = globals.logFormat === undefined ? io.isTTY === true : globals.logFormat === 'pretty';
  const level = globals.verbose ? 'debug' : globals.quiet ? 'warn' : configured;
  return { pretty, level };
}

export function loadOptions(io: CommandIo, command: Command): LoadConfigOptions {
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
export async function openStore(
  io: CommandIo,
  command: Command,
): Promise<{ opened: OpenedClaimStore; config: Config }> {
  // Loaded on demand, like every command's code: `issueloop --help` stays fast.
  const [{ loadConfig }, { openClaimStore }] = await Promise.all([
    import('../config/load-config.js'),
    import('../claims/open-claim-store.js'),
  ]);
  const loaded = await loadConfig(loadOptions(io, command));
  const redact = io.redactAlso(loaded.config.redact_env);
  // A Redis store keeps claims per repository: the one `run` works on, origin included.
  const { config } = await githubTarget(io, loaded, redact, { token: false });
  const log = createWarningLog(io.stderr);
  const opened = openClaimStore(config, { cwd: io.cwd, clock: systemClock, redact, log });
  io.atExit(() => opened.store.close());
  return { opened, config };
}

/**
 * The repository and token the command works with (run/github-target.ts: the same lookup for every
 * command), as the configuration's `repo` and the environment's token; a token from `gh auth token`
 * joins the output redaction.
 */
async function githubTarget(
  io: CommandIo,
  loaded: LoadedConfig,
  redact: Redactor,
  options: { token: boolean },
): Promise<{ config: Config; env: CliIo['env']; redact: Redactor; target: GitHubTarget }> {
  const { resolveGitHubTarget, targetConfig, targetEnv } = await import('../run/github-target.js');
  const target = await resolveGitHubTarget({
    env: io.env,
    config: loaded.config,
    ...(loaded.repoSource ? { repoSource: loaded.repoSource } : {}),
    cwd: io.cwd,
    redact,
    gh: true,
    token: options.token,
  });
  const widened = target.token ? io.redactAlso(loaded.config.redact_env, [target.token]) : redact;
  return {
    config: targetConfig(loaded.config, target),
    env: targetEnv(io.env, target),
    redact: widened,
    target,
  };
}

/**
 * The configuration, the output redactor widened by it, and the process deps, for a command that
 * works; with `github`, the repository and token it works with (`env` then carries the token).
 */
export async function configured(
  io: CommandIo,
  command: Command,
  quietInfo = false,
  // The logger cleans what it formats itself, and keeps its colours.
  write: (line: string) => void = io.terminal,
  github?: { token: boolean },
) {
  const [{ loadConfig }, { createProcessDeps }] = await Promise.all([
    import('../config/load-config.js'),
    import('../run/process-deps.js'),
  ]);
  const loaded = await loadConfig(loadOptions(io, command));
  let redact = io.redactAlso(loaded.config.redact_env);
  let { config } = loaded;
  let env = io.env;
  let target: GitHubTarget | undefined;
  if (github) ({ config, env, redact, target } = await githubTarget(io, loaded, redact, github));
  const style = logStyle(io, command, config.log_level);
  const deps = await createProcessDeps({
    env,
    // A one-shot command's progress lines would only repeat its report.
    level: quietInfo && style.level === 'info' ? 'warn' : style.level,
    isTTY: style.pretty,
    ...(io.color === undefined ? {} : { color: io.color }),
    write,
    redactEnv: config.redact_env,
  });
  for (const warning of target?.warnings ?? []) deps.log.warn(warning);
  return { config, redact, deps, env, ...(target ? { target } : {}) };
}
