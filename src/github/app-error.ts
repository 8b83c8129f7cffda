import { IssueloopError } from '../core/errors.js';

/**
 * A GitHub App that cannot act for the repository: not installed on it, suspended, or refusing the
 * App's own credentials (id or key). Every request of the run would fail the same way, so it is the
 * run's failure (class `auth`, exit 1), never an issue's; `fix` says what to change.
 */
export class GitHubAppError extends IssueloopError {
  readonly fix: string;
  /** What is wrong, without the fix. */
  readonly reason: string;
  /** GitHub's status for the refusal (404 not installed, 403 suspended, 401 credentials refused). */
  readonly status: number;

  constructor(message: string, fix: string, status: number, options?: { cause?: unknown }) {
    super('github_app', `${message}. Fix: ${fix}`, options);
    this.fix = fix;
    this.reason = message;
    this.status = status;
  }
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function messageOf(err: unknown): string {
  const data = (err as { response?: { data?: { message?: unknown } } } | null)?.response?.data;
  if (typeof data?.message === 'string') return data.message;
  return err instanceof Error ? err.message : String(err);
}

export interface AppErrorContext {
  appId: number | string;
  repo: { owner: string; name: string };
  /** Where the installation id came from, when it was given rather than looked up. */
  installationId?: number;
}

/**
 * The run-level error for what GitHub answered an App request, or `err` itself when the answer is
 * not the App's problem (a network failure, a 5xx: the client's retries and classification apply).
 */
export function appFailure(step: 'lookup' | 'mint' | 'app', err: unknown, ctx: AppErrorContext): unknown {
  const status = statusOf(err);
  const slug = `${ctx.repo.owner}/${ctx.repo.name}`;
  const credentials = `check ISSUELOOP_APP_ID (now ${ctx.appId}) and that ISSUELOOP_APP_PRIVATE_KEY holds a private key of that App (generate one in the App's settings), and that this machine's clock is right`;
  if (status === 401) {
    return new GitHubAppError(`GitHub refused the GitHub App's JWT: ${messageOf(err)}`, credentials, 401, {
      cause: err,
    });
  }
  if (step === 'lookup' && status === 404) {
    return new GitHubAppError(
      `the GitHub App ${ctx.appId} is not installed on ${slug}`,
      `install the App on ${slug} (the App's settings → Install App, choosing ${ctx.repo.owner} and the repository), or set ISSUELOOP_APP_INSTALLATION_ID to an installation that covers it`,
      404,
      { cause: err },
    );
  }
  if (step === 'mint' && status === 403 && /suspended/i.test(messageOf(err))) {
    return new GitHubAppError(
      `the GitHub App ${ctx.appId}'s installation on ${ctx.repo.owner} is suspended`,
      `unsuspend it in the settings of ${ctx.repo.owner} (Settings → GitHub Apps → Configure → Unsuspend)`,
      403,
      { cause: err },
    );
  }
  if (step === 'mint' && status === 404) {
    return new GitHubAppError(
      `the GitHub App ${ctx.appId} has no installation ${ctx.installationId ?? '(as looked up)'}`,
      `set ISSUELOOP_APP_INSTALLATION_ID (or github.app.installation_id) to the App's installation on ${ctx.repo.owner}, or leave it unset to look it up`,
      404,
      { cause: err },
    );
  }
  return err;
}
