/**
 * The one base error of issueloop. Subclasses carry what a caller decides on; `code` is a stable,
 * machine-readable name (never a sentence), `cause` keeps the original failure for classification.
 */
export class IssueloopError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** One problem found in the configuration, with the dotted path of the field and where the value came from. */
export interface ConfigProblem {
  path: string;
  message: string;
  source?: string;
}

/** Bad configuration: every problem is reported at once; entrypoints map it to exit code 2. */
export class ConfigError extends IssueloopError {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[], options?: { cause?: unknown }) {
    super('config_invalid', formatProblems(problems), options);
    this.problems = problems;
  }
}

/** Bad command-line usage; entrypoints map it to exit code 2. */
export class UsageError extends IssueloopError {
  constructor(message: string) {
    super('usage', message);
  }
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  const lines = problems.map((p) => {
    const where = p.path === '' ? '(top level)' : p.path;
    const from = p.source ? ` [${p.source}]` : '';
    return `  - ${where}: ${p.message}${from}`;
  });
  const noun = problems.length === 1 ? 'problem' : 'problems';
  return `invalid configuration (${problems.length} ${noun}):\n${lines.join('\n')}`;
}

/**
 * A state file (claims, board ids, ETag cache) that cannot be read back. It is never overwritten:
 * entrypoints map it to exit code 2 and the message says how to move it aside.
 */
export class CorruptStateError extends IssueloopError {
  readonly file: string;
  readonly detail: string;
  /** `newer_version`: the file is fine but from a newer issueloop; never move such a file aside. */
  readonly reason: 'unreadable' | 'newer_version';

  constructor(
    file: string,
    detail: string,
    fix: string,
    options?: { cause?: unknown; reason?: 'unreadable' | 'newer_version' },
  ) {
    super('state_corrupt', `${file} is unreadable: ${detail}. It was left untouched. ${fix}`, options);
    this.file = file;
    this.detail = detail;
    this.reason = options?.reason ?? 'unreadable';
  }

  /** The same problem with another way out (a task file's claims are reset with `reset --tasks`). */
  withFix(fix: string): CorruptStateError {
    return new CorruptStateError(this.file, this.detail, fix, { cause: this, reason: this.reason });
  }
}

/**
 * A state path issueloop cannot use as it is: on a read-only file system, without permission, or of
 * the wrong kind (a directory where a state file belongs, a file where the state directory belongs).
 * Waiting does not help, so nothing retries it: entrypoints map it to exit code 2, and the message
 * names the path and what to change.
 */
export class StateAccessError extends IssueloopError {
  readonly path: string;
  readonly problem: 'read_only' | 'permission' | 'is_directory' | 'not_directory';

  constructor(
    path: string,
    problem: StateAccessError['problem'],
    message: string,
    options?: { cause?: unknown },
  ) {
    super('state_unusable', message, options);
    this.path = path;
    this.problem = problem;
  }
}
