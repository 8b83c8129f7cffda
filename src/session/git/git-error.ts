import type { ErrorClass } from '../../core/classify/policy.js';
import { IssueloopError } from '../../core/errors.js';

/** Longest stderr kept on an error: enough for git's last few lines, bounded for logs and comments. */
export const MAX_STDERR_TAIL = 2_000;

export interface GitErrorDetails {
  /** The arguments after `git`, redacted. */
  args: readonly string[];
  /** Undefined when git never started, was killed, or the run was aborted. */
  exitCode: number | undefined;
  /** The end of stderr, redacted, at most MAX_STDERR_TAIL characters. */
  stderrTail: string;
  errorClass: ErrorClass;
}

/**
 * A failed git command. `errorClass` is in core's closed set, so callers pick the recovery action
 * (a stale lease is a `conflict`: refresh and retry once) without reading git's wording themselves.
 * Every text on it was redacted before it got here: remote URLs may carry tokens.
 */
export class GitError extends IssueloopError {
  readonly args: readonly string[];
  readonly exitCode: number | undefined;
  readonly stderrTail: string;
  readonly errorClass: ErrorClass;

  constructor(message: string, details: GitErrorDetails, options?: { cause?: unknown }) {
    super('git_failed', message, options);
    this.args = details.args;
    this.exitCode = details.exitCode;
    this.stderrTail = details.stderrTail;
    this.errorClass = details.errorClass;
  }
}

interface OutputRule {
  errorClass: ErrorClass;
  pattern: RegExp;
}

// Checked in order: a rejected push names the remote and may mention the network on the same run,
// but the rejection is what the caller must act on. LC_ALL=C keeps these English.
const OUTPUT_RULES: readonly OutputRule[] = [
  { errorClass: 'conflict', pattern: /stale info|rejected|fetch first/i },
  {
    errorClass: 'auth',
    pattern:
      /Authentication failed|could not read Username|could not read Password|Permission denied \(publickey|returned error: 401/i,
  },
  // GitHub's answer to a push the token may not make; before `network`, whose "unable to access" it shares.
  { errorClass: 'permission', pattern: /returned error: 403|Permission to \S+ denied/i },
  {
    errorClass: 'network',
    pattern: /Could not resolve host|unable to access|Connection refused|timed out/i,
  },
  {
    errorClass: 'not_found',
    pattern: /couldn't find remote ref|does not appear to be a git repository|Repository not found/i,
  },
];

/** The class of a failure from git's own output (stderr, and stdout where `--porcelain` puts rejections). */
export function classifyGitOutput(output: string): { errorClass: ErrorClass; line?: string } {
  const lines = output.split(/\r?\n/);
  for (const rule of OUTPUT_RULES) {
    const line = lines.find((candidate) => rule.pattern.test(candidate));
    if (line !== undefined) return { errorClass: rule.errorClass, line: line.trim() };
  }
  return { errorClass: 'unknown' };
}

/** The end of `text`, cut at a line start when one is near, so the tail does not open mid-word. */
export function tail(text: string, max: number = MAX_STDERR_TAIL): string {
  const trimmed = text.trimEnd();
  if (trimmed.length <= max) return trimmed;
  const cut = trimmed.slice(trimmed.length - max);
  const newline = cut.indexOf('\n');
  return newline >= 0 && newline < max / 2 ? cut.slice(newline + 1) : cut;
}
