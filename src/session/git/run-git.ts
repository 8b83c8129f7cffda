import type { ErrorClass } from '../../core/classify/policy.js';
import { type Redactor, redact as redactPatterns } from '../../core/redact.js';
import { telemetry } from '../../core/telemetry.js';
import { ISSUELOOP } from '../../core/telemetry-names.js';
import { classifyGitOutput, GitError, tail } from './git-error.js';
import { spawnGit } from './spawn-git.js';

export const DEFAULT_GIT_TIMEOUT_MS = 5 * 60_000;

/** Options every git operation accepts. */
export interface GitOptions {
  /**
   * The whole environment of git (default: this process's). The caller scrubs what git must not see;
   * GIT_TERMINAL_PROMPT=0 and LC_ALL=C are always added on top.
   */
  env?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
  /** Default DEFAULT_GIT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Applied to every text a GitError carries. Default: core's pattern-only `redact`. */
  redact?: Redactor;
}

export interface RunGitOptions extends GitOptions {
  cwd: string;
  /** Written to stdin. Without it stdin is closed at once, so nothing can wait on it. */
  input?: string;
  /** Exit codes that are answers, not failures (e.g. 1 for `diff --quiet`). 0 always is. */
  okExitCodes?: readonly number[];
}

/**
 * Put before every command the harness runs: nothing from a config the agent could have touched
 * (the worktree's, or with `sandbox.mode: none` the shared one) runs a program or redirects a
 * credential. Hooks, fsmonitor, pagers, editors, external diff, credential helpers, askpass and
 * proxy commands are switched off here; filter and textconv drivers, `url.*.insteadOf` and
 * `remote.*.pushurl` cannot be switched off by name, so the harness never uses them (pushes go to
 * the URL it resolved, diffs use --no-textconv) and checks that the shared config is the one it
 * read before the agent started (git-state.ts).
 */
export const HARDENED_CONFIG: readonly string[] = Object.freeze([
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.editor=:',
  'core.askPass=',
  'core.gitProxy=',
  'core.sshCommand=ssh',
  'credential.helper=',
  'diff.external=',
  'protocol.ext.allow=never',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  // A submodule directory is the agent's to make a repository of its own, with a config whose filters
  // and hooks a git started in it would run (found by the security review): never descend into one.
  'diff.ignoreSubmodules=all',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'fetch.recurseSubmodules=false',
  'push.recurseSubmodules=no',
  // No background maintenance started by the harness's commands.
  'maintenance.auto=false',
  'gc.auto=0',
]);

const HARDENED_ARGS: readonly string[] = HARDENED_CONFIG.flatMap((setting) => ['-c', setting]);

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

// Far above any status or ls-remote of a real repository; only there so a runaway cannot exhaust memory.
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
const MAX_COMMAND_IN_MESSAGE = 200;

function describeCommand(args: readonly string[]): string {
  const text = `git ${args.join(' ')}`;
  return text.length > MAX_COMMAND_IN_MESSAGE ? `${text.slice(0, MAX_COMMAND_IN_MESSAGE - 1)}…` : text;
}

function lastLine(text: string): string | undefined {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .at(-1);
}

interface FailureInput {
  args: readonly string[];
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  forced?: { errorClass: ErrorClass; reason: string };
  redactor: Redactor;
  cause?: unknown;
}

function toGitError(input: FailureInput): GitError {
  const { redactor } = input;
  const args = input.args.map((arg) => redactor(arg));
  const stderrTail = redactor(tail(input.stderr));
  // --porcelain puts a push's rejection on stdout; it is what explains the failure.
  const classified = classifyGitOutput(`${input.stderr}\n${input.stdout}`);
  const errorClass = input.forced?.errorClass ?? classified.errorClass;
  const detail =
    input.forced?.reason ??
    classified.line ??
    lastLine(input.stderr) ??
    (input.exitCode === undefined ? 'no output' : `exit code ${input.exitCode}`);
  const exit = input.exitCode === undefined ? '' : ` (exit ${input.exitCode})`;
  const message = redactor(`${describeCommand(args)} failed${exit}: ${detail}`);
  const details = { args, exitCode: input.exitCode, stderrTail, errorClass };
  return new GitError(message, details, input.cause === undefined ? undefined : { cause: input.cause });
}

/**
 * Runs one git command: no shell, explicit args, never interactive. Every failure
 * becomes a redacted, classified GitError; an abort is `aborted`, our own timeout `timeout`.
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  // The span names the subcommand only: arguments can be paths, URLs or messages.
  const command = subcommandOf(args);
  return telemetry().span(`git ${command}`, { [ISSUELOOP.gitCommand]: command }, async (span) => {
    try {
      return await spawnAndCheck(args, options);
    } catch (err) {
      if (err instanceof GitError) span.set({ [ISSUELOOP.errorClass]: err.errorClass });
      throw err;
    }
  });
}

/** The git subcommand in `args` (`-C dir`, `-c key=value` and other options before it skipped). */
export function subcommandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-C' || arg === '-c') i++;
    else if (!arg.startsWith('-')) return /^[a-z][a-z0-9-]*$/.test(arg) ? arg : 'command';
  }
  return 'command';
}

async function spawnAndCheck(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  const redactor = options.redact ?? redactPatterns;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const signal = options.signal;
  if (signal?.aborted) {
    throw toGitError({
      args,
      stdout: '',
      stderr: '',
      exitCode: undefined,
      forced: { errorClass: 'aborted', reason: 'aborted before git started' },
      redactor,
      cause: signal.reason,
    });
  }
  const env: Record<string, string | undefined> = {
    ...(options.env ?? process.env),
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    GIT_PAGER: 'cat',
    GIT_EDITOR: ':',
    // refs/replace/* (which the agent can write) would change what every object reads as.
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_ASKPASS: undefined,
    SSH_ASKPASS: undefined,
    GIT_EXTERNAL_DIFF: undefined,
  };
  const outcome = await spawnGit([...HARDENED_ARGS, ...args], {
    cwd: options.cwd,
    env,
    input: options.input ?? '',
    timeoutMs,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    signal,
  });
  const { stdout, stderr } = outcome;
  let forced: FailureInput['forced'];
  if (outcome.stopped === 'aborted') forced = { errorClass: 'aborted', reason: 'aborted' };
  else if (outcome.stopped === 'timeout')
    forced = { errorClass: 'timeout', reason: `timed out after ${timeoutMs} ms` };
  else if (outcome.stopped === 'output_limit') {
    forced = { errorClass: 'unknown', reason: `output exceeded ${MAX_OUTPUT_BYTES} bytes` };
  } else if (outcome.spawnError) {
    // ENOENT and friends: git (or the cwd) is missing; nothing git printed explains it.
    forced = { errorClass: 'unknown', reason: `could not start git: ${outcome.spawnError.message}` };
  } else if (
    outcome.exitCode === 0 ||
    (outcome.exitCode !== undefined && options.okExitCodes?.includes(outcome.exitCode))
  ) {
    return { stdout, stderr, exitCode: outcome.exitCode };
  }
  throw toGitError({ args, stdout, stderr, exitCode: outcome.exitCode, forced, redactor });
}
