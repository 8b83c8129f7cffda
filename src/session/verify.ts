import { runShell } from '../agent/tools/run-shell.js';
import type { Clock } from '../core/clock.js';
import { withoutEscapeSequences } from '../core/terminal-text.js';
import type { CommandSandbox } from '../sandbox/sandbox.js';

/** Output kept from a verify run: enough for the agent to fix it and for the PR body to show it. */
export const VERIFY_OUTPUT_CHARS = 8_000;

export interface VerifyResult {
  command: string;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** Head and tail of the output, trimmed. */
  output: string;
  durationMs: number;
}

/**
 * The repository's own check (or the session's setup command), run by the harness in the worktree —
 * never trusted from the model's word. Same confinement as the agent's bash: the sandbox, scrubbed
 * environment, stdin closed, process group killed at the timeout.
 */
export async function runVerify(
  command: string,
  options: {
    cwd: string;
    env: Readonly<Record<string, string>>;
    timeoutMs: number;
    signal: AbortSignal;
    clock: Pick<Clock, 'now'>;
    sandbox: CommandSandbox;
  },
): Promise<VerifyResult> {
  const started = options.clock.now();
  const result = await runShell(command, {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxOutputChars: VERIFY_OUTPUT_CHARS,
    signal: options.signal,
    sandbox: options.sandbox,
  });
  const timedOut = result.ended === 'timeout';
  let output = result.output;
  if (timedOut) output += `\n[verify timed out after ${Number((options.timeoutMs / 1000).toFixed(1))} s]`;
  if (result.spawnError) output = `could not start bash: ${result.spawnError}`;
  return {
    command,
    passed: result.exitCode === 0 && result.ended === undefined,
    exitCode: result.exitCode,
    timedOut,
    output,
    durationMs: options.clock.now() - started,
  };
}

/** How long the failing line a verify failure's reason quotes may be. */
export const FAILING_LINE_CHARS = 200;

/** The C0 and C1 controls that are not whitespace: invisible, so dropped (a space between a secret's halves would keep it whole to the eye). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
const INVISIBLE_CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]+/g;

/** A line that starts a failure report: `SomeError: …` (`[CODE]` allowed), a runner's FAIL or `not ok`, a cross. */
const FAILURE_HEAD = /^(?:\w*(?:Error|Exception)(?: \[\w+\])?:|FAIL(?:ED)?\b|not ok\b|panic|[✗✖×])/;
/** A line that mentions a failure. */
const FAILURE_WORDS =
  /\b(?:error|errors|fail|failed|failure|failing|assert\w*|exception|not ok|panic\w*)\b|[✗✖×]/i;

/**
 * The line of a failed check's output worth quoting in its one-line reason (what the next attempt and
 * the tracking comment are told): the first line that starts a failure report (an error's name, a
 * runner's FAIL or `not ok`), else the last that mentions one, else the last line; escape
 * sequences and other invisible controls go whole, whitespace becomes a space, and it is cut to
 * FAILING_LINE_CHARS. The output is the agent's code's: `redact` runs on the whole output (a secret
 * split across lines) and again on the cleaned line (one an escape sequence split), before the cut
 * (a secret cut short is no longer found). Undefined for no output.
 */
export function failingLine(
  output: string,
  redact: (text: string) => string = (text) => text,
): string | undefined {
  const lines = redact(output)
    .split('\n')
    .map((line) => withoutEscapeSequences(line).replace(INVISIBLE_CONTROLS, '').replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '' && !/^\[verify timed out after/.test(line));
  const picked =
    lines.find((l) => FAILURE_HEAD.test(l)) ?? lines.findLast((l) => FAILURE_WORDS.test(l)) ?? lines.at(-1);
  if (picked === undefined) return undefined;
  const line = redact(picked);
  if (line.length <= FAILING_LINE_CHARS) return line;
  // Never half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(line[FAILING_LINE_CHARS - 2] ?? '')
    ? FAILING_LINE_CHARS - 2
    : FAILING_LINE_CHARS - 1;
  return `${line.slice(0, end)}…`;
}

/** What the agent is told when the check fails, for its fix-up turn. */
export function renderVerifyFailure(result: VerifyResult, attemptsLeft: number): string {
  const status = result.timedOut ? 'timed out' : `failed with exit code ${result.exitCode ?? 'none'}`;
  return [
    `The harness ran \`${result.command}\` in the worktree and it ${status}. Output (trimmed):`,
    '```',
    result.output.trimEnd(),
    '```',
    `Fix the cause, run the check yourself, and finish with a summary. ${attemptsLeft} fix-up turn(s) left.`,
  ].join('\n');
}

/** Why `session.setup` ended the attempt before the agent started: the command and its last lines. */
export function describeSetupFailure(result: VerifyResult): string {
  const how = result.timedOut ? 'timed out' : `failed (exit ${result.exitCode ?? 'none'})`;
  const tail = result.output.trim().split('\n').slice(-5).join('\n');
  return `session.setup \`${result.command}\` ${how}: ${tail}`;
}
