import { computeBackoff } from '../core/backoff.js';
import { IssueloopError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { SessionReport } from '../session/session-report.js';

/** Sessions in a row stopped by the run's own failure before the run ends (exit 1). */
export const MAX_RUN_FAILURES = 3;

/**
 * A failure that is the run's, not the issue's: a credential that was refused (revoked, mistyped) or
 * may not do what the run needs, an account that cannot pay, or a model API or GitHub that sessions
 * one after another cannot reach. Every session would fail the same way, so no issue is charged with it.
 */
export interface RunCause {
  errorClass: 'auth' | 'billing' | 'permission' | 'network' | 'server_error';
  /** What failed, in the session's words. */
  message: string;
  /** What to set or do about it. */
  fix: string;
}

type RunClass = RunCause['errorClass'];

const GITHUB_SIDE = /github|git push|git fetch|pull request|bad credentials|GH_TOKEN/i;
/** A file or process on this machine that may not be touched: about the work, not the run. */
const LOCAL_PERMISSION = /\b(EACCES|EPERM)\b|permission denied/i;

function classOf(report: SessionReport): string | undefined {
  return report.outcome.startsWith('error:') ? report.outcome.slice('error:'.length) : undefined;
}

/**
 * When a failure of this class is the run's: `always` (one session says it for all: a refused
 * credential, billing, the model credential's permission), `repeated` (when the session before ended
 * the same way, since one alone may be a blip: network, server errors, GitHub refusing the token a
 * write), or never (the issue's).
 */
function scopeOf(errorClass: string, report: SessionReport): 'always' | 'repeated' | undefined {
  switch (errorClass) {
    case 'auth':
    case 'billing':
      return 'always';
    case 'network':
    case 'server_error':
      return 'repeated';
    case 'permission':
      if (LOCAL_PERMISSION.test(report.reason)) return undefined;
      return GITHUB_SIDE.test(report.reason) ? 'repeated' : 'always';
    default:
      return undefined;
  }
}

function fixFor(errorClass: RunClass, report: SessionReport): string {
  const github = GITHUB_SIDE.test(report.reason);
  switch (errorClass) {
    case 'billing':
      return 'add credits to the Anthropic account (Plans & Billing), or use another ANTHROPIC_API_KEY';
    case 'permission':
      // A GitHub App's refusal names the permission it lacks in the message.
      if (/GitHub App/.test(report.reason))
        return "give the GitHub App the permissions the message names (Contents, Issues, Pull requests: read & write; Workflows for .github/workflows), then accept them in the installation's settings";
      // GitHub's answer to an installation token (an App's, or the Actions token) lacking a permission.
      if (/not accessible by integration/i.test(report.reason))
        return "give the GitHub App the Contents, Issues and Pull requests: read & write permissions (accept them in the installation's settings), or, for the Actions token, the workflow's `permissions:` block";
      if (github)
        return 'give the token (GH_TOKEN, GITHUB_TOKEN, or that of `gh auth login`) contents, issues and pull-requests write access to the repository';
      return `use a model credential whose workspace may use ${report.model} (ANTHROPIC_API_KEY), or set model.primary to a model it may use`;
    case 'auth':
      // A GitHub App that is not installed, suspended or refused carries its own fix in the message.
      if (/GitHub App/.test(report.reason))
        return 'the GitHub App, as the message says: install it on the repository, unsuspend it, or check ISSUELOOP_APP_ID and ISSUELOOP_APP_PRIVATE_KEY';
      if (github)
        return 'set GH_TOKEN or GITHUB_TOKEN (GH_TOKEN wins) to a token GitHub accepts, with access to the repository';
      return report.model.startsWith('claude-code')
        ? 'set ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_AUTH_TOKEN to a credential the model API accepts'
        : 'set ANTHROPIC_API_KEY to a key the model API accepts';
    default:
      return github
        ? 'check that GitHub (GITHUB_API_URL) is reachable from here, or its status'
        : 'check that the model API (ANTHROPIC_BASE_URL) is reachable from here, or its status';
  }
}

const STOPPED_BY: Readonly<Record<RunClass, string>> = {
  auth: 'a refused credential',
  billing: 'billing',
  permission: 'a credential without permission',
  network: 'the same network failure',
  server_error: 'the same server failure',
};

/**
 * The run's judge of failures that are its own, told of every session as it ends (in the order they
 * end), by `scopeOf`. Each such session pauses claiming with backoff; a session that ends otherwise
 * clears it; MAX_RUN_FAILURES in a row end the run, naming the cause and the fix.
 */
export function createRunFailureMonitor(random: Random) {
  let lastClass: string | undefined;
  let paused = 0;
  let waited = 0;
  let last: RunCause | undefined;
  return {
    /** The cause when this session's failure is the run's (then the item is not charged). */
    judge(report: SessionReport): RunCause | undefined {
      if (report.outcome === 'interrupted') return undefined;
      const errorClass = classOf(report);
      const scope = errorClass === undefined ? undefined : scopeOf(errorClass, report);
      const repeated = scope === 'repeated' && errorClass === lastClass;
      lastClass = errorClass;
      if (errorClass === undefined || !(scope === 'always' || repeated)) {
        paused = 0;
        waited = 0;
        return undefined;
      }
      last = {
        errorClass: errorClass as RunClass,
        message: report.reason,
        fix: fixFor(errorClass as RunClass, report),
      };
      paused += 1;
      return last;
    },
    /** How long to hold off claiming now (0: go on); throws once the failure has persisted. */
    holdMs(): number {
      if (!last || paused === 0) return 0;
      if (paused >= MAX_RUN_FAILURES) {
        throw new IssueloopError(
          'run_failure',
          `${paused} sessions in a row stopped by ${STOPPED_BY[last.errorClass]} (${last.message}); no issue was charged with it. Fix: ${last.fix}`,
        );
      }
      if (waited >= paused) return 0;
      waited = paused;
      return computeBackoff(paused, {}, random);
    },
  };
}
