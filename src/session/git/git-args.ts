import { IssueloopError } from '../../core/errors.js';
import { redact } from '../../core/redact.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

function invalid(what: string, value: string): IssueloopError {
  return new IssueloopError(
    'git_invalid_argument',
    redact(`invalid ${what} for git: ${JSON.stringify(value)}`),
  );
}

/**
 * Refuses a value that git would read as an option (`--upload-pack=…` as a remote name runs a
 * program) or that cannot be one argument. Names reach git from config and issue data, so this is
 * checked even though no shell is involved.
 */
export function assertGitArg(what: string, value: string): string {
  if (value === '' || value.startsWith('-') || /[\0\r\n]/.test(value)) throw invalid(what, value);
  return value;
}

/** A full sha-1 or sha-256 object id, nothing git would have to resolve. */
export function assertSha(what: string, value: string): string {
  if (!SHA.test(value)) throw invalid(what, value);
  return value;
}

/** The first line of git's output, trimmed: a sha, a ref name. */
export function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}
