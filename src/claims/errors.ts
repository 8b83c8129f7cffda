import { IssueloopError } from '../core/errors.js';
import type { Holder } from './claim-store.js';

/**
 * A renew or release with a lease the store no longer honours: it expired, was force-released, or
 * another worker holds the issue now. The holder must stop working on the issue.
 */
export class StaleLeaseError extends IssueloopError {
  readonly issue: number;
  readonly token: number;
  readonly current: Holder | undefined;

  constructor(issue: number, token: number, current: Holder | undefined, why: string) {
    const now = current ? `; #${issue} is now held by ${current.owner} (token ${current.token})` : '';
    super('lease_stale', `lease on #${issue} with token ${token} is no longer valid: ${why}${now}`);
    this.issue = issue;
    this.token = token;
    this.current = current;
  }
}

/** The file lock was lost mid-transaction (removed, or stale and possibly taken): nothing was written. */
export class LockCompromisedError extends IssueloopError {
  constructor(lockPath: string, detail: string, options?: { cause?: unknown }) {
    super(
      'lock_compromised',
      `lost the lock ${lockPath} (${detail}); the transaction was not written`,
      options,
    );
  }
}

/** The lock stayed busy for longer than the store waits. */
export class LockTimeoutError extends IssueloopError {
  constructor(lockPath: string, waitedMs: number, options?: { cause?: unknown }) {
    super(
      'lock_timeout',
      `could not lock ${lockPath} within ${Math.round(waitedMs / 1000)} s: another issueloop process holds it. ` +
        'If none is running, the lock is released by itself once it is stale, or remove that directory.',
      options,
    );
  }
}

/**
 * A server claim store (Redis) could not be reached. Error classification knows the name and files it as
 * `network`: the run pauses claiming and retries.
 */
/**
 * What went wrong with a Redis connection, in the user's terms: ioredis's own wording names its
 * options ("Refer to maxRetriesPerRequest option"), which is nothing a user of issueloop sets.
 */
export function redisFailure(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (/maxRetriesPerRequest/.test(message)) return 'no answer: the connection failed and the retry did too';
  if (/Command timed out/i.test(message)) return 'no answer within the command timeout';
  if (/Connection is closed/i.test(message)) return 'the connection is closed';
  return message;
}

export class ClaimStoreUnreachableError extends IssueloopError {
  constructor(location: string, what: string, cause: unknown) {
    super(
      'claims_unreachable',
      `claim store ${location} unreachable while trying to ${what}: ${redisFailure(cause)}; check that Redis is running there and claims.redis_url is right`,
      { cause },
    );
  }
}
