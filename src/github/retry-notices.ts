import type { Octokit } from '@octokit/rest';
import { classifyError } from '../core/classify/classify-error.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import { retryNoticeText } from '../core/retry-notice.js';

/**
 * An Octokit plugin that says, once per retry, what @octokit/plugin-retry is about to wait for:
 * "github: GET /repos/a/b/issues: connect ECONNREFUSED …; retrying 1/2 in 1 s…". plugin-retry has no
 * callback, so this sits just inside it (registered between plugin-throttling and plugin-retry) and
 * applies plugin-retry's own rule to each failure on its way out: a status of 400 or more outside
 * `doNotRetry` is retried while fewer than `retries` retries were made, after (retries made + 1)²
 * times `retryAfterBaseValue`. Rate limits are plugin-throttling's, which says its own waits.
 */

export interface RetryNoticeOptions {
  log: Log;
  redact: Redactor;
}

/** plugin-retry's defaults (v8), for what the client does not set. */
const PLUGIN_RETRY_DEFAULTS = {
  retries: 3,
  retryAfterBaseValue: 1000,
  doNotRetry: [400, 401, 403, 404, 410, 422, 451],
};

interface FailedRequest {
  status?: number;
  request?: { method?: string; url?: string; request?: { retries?: number } };
}

function where(url: string | undefined): string {
  if (url === undefined) return '';
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

export function retryNotices(
  octokit: Pick<Octokit, 'hook'>,
  options: { retry?: Partial<typeof PLUGIN_RETRY_DEFAULTS>; retryNotice?: RetryNoticeOptions },
): void {
  const notice = options.retryNotice;
  if (!notice) return;
  const state = { ...PLUGIN_RETRY_DEFAULTS, ...options.retry };
  octokit.hook.error('request', (error, request) => {
    const failed = error as FailedRequest;
    const status = failed.status;
    // What plugin-retry retries: a request error (it carries its request) with such a status.
    if (failed.request?.request === undefined || status === undefined) throw error;
    if (status < 400 || status === 429 || state.doNotRetry.includes(status)) throw error;
    const own = request.request as { retries?: number; retryCount?: number } | undefined;
    const retries = own?.retries ?? state.retries;
    const made = own?.retryCount ?? 0;
    if (made >= retries) throw error;
    const waitMs = (made + 1) ** 2 * state.retryAfterBaseValue;
    const operation = `github: ${failed.request.method ?? request.method} ${where(failed.request.url)}`;
    const message = classifyError(error, { redact: notice.redact }).message;
    notice.log.info(
      { status, retry: made + 1, retries, waitMs },
      notice.redact(retryNoticeText({ operation, message, retry: made + 1, retries, waitMs })),
    );
    throw error;
  });
}
