import { type ClassifiedError, classifyError } from '../core/classify/classify-error.js';
import { CLASS_POLICY, type ErrorClass } from '../core/classify/policy.js';
import { IssueloopError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { GitHubAppError } from './app-error.js';

/**
 * Every failure of a GitHub call leaves the adapter as a `GitHubError`: classified once, here, with
 * the operation that failed and a fix a maintainer can act on. Callers decide from `classified`.
 */
export class GitHubError extends IssueloopError {
  readonly operation: string;
  readonly classified: ClassifiedError;
  readonly errorClass: ErrorClass;

  constructor(operation: string, classified: ClassifiedError, options?: { cause?: unknown }) {
    const fix = classified.hint ? `: ${classified.hint}` : '';
    super(`github_${classified.errorClass}`, `${operation} failed: ${classified.message}${fix}`, options);
    this.operation = operation;
    this.classified = classified;
    this.errorClass = classified.errorClass;
  }

  get status(): number | undefined {
    return this.classified.status;
  }
}

/** Operations on the Projects v2 board: their auth failures have a fix of their own. */
export type OperationArea = 'repository' | 'project';

export const PROJECTS_TOKEN_HINT =
  'Projects v2 needs a classic token with the `project` scope (or a GitHub App with the organization permission "Projects: read and write"); the Actions GITHUB_TOKEN cannot access Projects v2. Set GITHUB_TOKEN, or ISSUELOOP_PROJECTS_TOKEN for the board alone';

const PROJECT_ACCESS_TEXT =
  /resource not accessible by integration|required scopes|INSUFFICIENT_SCOPES|could not resolve to a ProjectV2/i;

function hintFor(area: OperationArea, classified: ClassifiedError): string | undefined {
  if (area !== 'project') return classified.hint;
  if (
    classified.errorClass === 'auth' ||
    classified.errorClass === 'permission' ||
    PROJECT_ACCESS_TEXT.test(classified.message)
  ) {
    if (/could not resolve to a ProjectV2/i.test(classified.message)) {
      return `check project.owner and project.number (or project.title); if they are right, the token cannot see the project. ${PROJECTS_TOKEN_HINT}`;
    }
    return PROJECTS_TOKEN_HINT;
  }
  return classified.hint;
}

export interface ToGitHubErrorContext {
  now: number;
  redact: Redactor;
  area?: OperationArea;
}

/** Classifies `err` (once: an existing GitHubError passes through) and names the operation. */
export function toGitHubError(operation: string, err: unknown, ctx: ToGitHubErrorContext): GitHubError {
  if (err instanceof GitHubError) return err;
  if (err instanceof GitHubAppError) return appError(operation, err, ctx);
  const classified = classifyError(err, { now: ctx.now, redact: ctx.redact });
  const hint = hintFor(ctx.area ?? 'repository', classified);
  const withHint: ClassifiedError = hint === undefined ? classified : { ...classified, hint };
  return new GitHubError(operation, withHint, { cause: err });
}

/**
 * An App that cannot act for the repository (not installed, suspended, its key refused) is the run's
 * failure whatever GitHub's status said (404, 403, 401): class `auth`, with the App's own fix.
 */
function appError(operation: string, err: GitHubAppError, ctx: ToGitHubErrorContext): GitHubError {
  const policy = CLASS_POLICY.auth;
  const classified: ClassifiedError = {
    errorClass: 'auth',
    action: policy.action,
    retryable: policy.retryable,
    failover: policy.failover,
    source: 'github',
    status: err.status,
    message: ctx.redact(err.reason),
    hint: err.fix,
  };
  return new GitHubError(operation, classified, { cause: err });
}

export function isGitHubError(err: unknown, errorClass?: ErrorClass): err is GitHubError {
  return err instanceof GitHubError && (errorClass === undefined || err.errorClass === errorClass);
}

/** The HTTP status of an Octokit or GitHubError failure, if it had one. */
export function httpStatusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
