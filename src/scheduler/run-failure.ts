import { computeBackoff } from '../core/backoff.js';
import { IssueloopError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { SessionReport } from '../session/session-report.js';

/** Sessions in a row stopped by the run's own failure before the run ends (exit 1). */
export const MAX_RUN_FAILURES = 3;

/**
 * A failure that is the run's, not the issue's: a credential that was refused (revoked, mistyped) or
 * an account that cannot pay. Every session would fail the same way, so no issue is charged with it.
 */
export interface RunCause {
  errorClass: 'auth' | 'billing';
  /** What failed, in the session's words. */
  message: string;
  /** What to set or do about it. */
  fix: string;
}

const GITHUB_SIDE = /github|git push|pull request|bad credentials|GITHUB_TOKEN/i;

/** The run's cause behind a session's outcome, when the outcome is one; undefined for the issue's own. */
export function runLevelCause(report: SessionReport): RunCause | undefined {
  const errorClass =
    report.outcome === 'error:auth' || report.outcome === 'error:billing'
      ? report.outcome.slice(6)
      : undefined;
  if (errorClass !== 'auth' && errorClass !== 'billing') return undefined;
  const github = GITHUB_SIDE.test(report.reason);
  const fix =
    errorClass === 'billing'
      ? 'add credits to the Anthropic account (Plans & Billing), or use another ANTHROPIC_API_KEY'
      : github
        ? 'set GITHUB_TOKEN (or GH_TOKEN) to a token GitHub accepts, with access to the repository'
        : report.model.startsWith('claude-code')
          ? 'set ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_AUTH_TOKEN to a credential the model API accepts'
          : 'set ANTHROPIC_API_KEY to a key the model API accepts';
  return { errorClass, message: report.reason, fix };
}

/**
 * The run's view of failures that are its own: each such session pauses claiming with backoff; a
 * session that ends otherwise clears it; MAX_RUN_FAILURES in a row end the run, naming the cause.
 */
export function createRunFailureMonitor(random: Random) {
  let streak = 0;
  let waited = 0;
  let last: RunCause | undefined;
  return {
    record(report: SessionReport): RunCause | undefined {
      const cause = runLevelCause(report);
      if (cause) {
        streak += 1;
        last = cause;
      } else if (report.outcome !== 'interrupted') {
        streak = 0;
        waited = 0;
      }
      return cause;
    },
    /** How long to hold off claiming now (0: go on); throws once the failure has persisted. */
    holdMs(): number {
      if (!last || streak === 0) return 0;
      if (streak >= MAX_RUN_FAILURES) {
        throw new IssueloopError(
          'run_failure',
          `${streak} sessions in a row stopped by ${last.errorClass === 'auth' ? 'a refused credential' : 'billing'} (${last.message}); no issue was charged with it. Fix: ${last.fix}`,
        );
      }
      if (waited >= streak) return 0;
      waited = streak;
      return computeBackoff(streak, {}, random);
    },
  };
}
