import type { ErrorFacts } from './error-facts.js';
import { githubRateLimitFromHeaders, retryAfterMsFromHeaders } from './headers.js';
import type { ErrorClass } from './policy.js';

/**
 * The structured rules of classification, one function per kind of evidence, each returning a
 * decision or nothing so the next rule can look. Order (abort, GraphQL, Anthropic type, status,
 * Node code, SDK name) is set by `classifyError`.
 */

/** GitHub's documented minimum wait for a secondary limit without `retry-after`. */
export const GITHUB_SECONDARY_DEFAULT_MS = 60_000;

export interface Decision {
  errorClass: ErrorClass;
  message: string;
  /** Left undefined when nobody said how long to wait. */
  retryAfterMs?: number | undefined;
  rateLimit?: 'primary' | 'secondary';
}

const BILLING_TEXT =
  /enforced_spend_limit_reached|spend limit|api usage limits|credit balance|billing_error/i;
const CONTEXT_TEXT =
  /prompt is too long|context[_ ]length|context window|maximum context|too many tokens|exceeds? (?:the )?(?:maximum )?(?:context|token) limit/i;
const CONTENT_FILTER_TEXT = /content[_ ]filter|output blocked/i;
const SECONDARY_TEXT = /secondary rate limit|abuse detection/i;
const RATE_LIMIT_TEXT = /\brate limit/i;
/** GitHub GraphQL's own wording for a failure on its side (often a timeout of the query). */
const GRAPHQL_TRANSIENT_TEXT = /something went wrong while executing your query|timeout|try again/i;
const ALREADY_EXISTS_TEXT = /already exists/i;

function joined(facts: ErrorFacts): string {
  return [facts.apiMessage, facts.githubMessage, ...facts.messages].filter(Boolean).join('\n');
}

export function fromAnthropicType(facts: ErrorFacts, now: number | undefined): Decision | undefined {
  const type = facts.apiType;
  if (!type) return undefined;
  const text = facts.apiMessage ?? '';
  const message = `${facts.status ?? ''} ${type}: ${text}`.trim();
  // Only the classes that are worth waiting for carry the server's wait.
  const withWait = (errorClass: ErrorClass): Decision => ({
    errorClass,
    message,
    retryAfterMs: retryAfterMsFromHeaders(facts.headers, now),
  });
  switch (type) {
    case 'invalid_request_error':
      if (BILLING_TEXT.test(text)) return { errorClass: 'billing', message };
      if (CONTEXT_TEXT.test(text)) return { errorClass: 'context_overflow', message };
      if (CONTENT_FILTER_TEXT.test(text)) return { errorClass: 'content_filter', message };
      return { errorClass: 'invalid_request', message };
    case 'authentication_error':
      return { errorClass: 'auth', message };
    case 'billing_error':
      return { errorClass: 'billing', message };
    case 'permission_error':
      return { errorClass: 'permission', message };
    case 'not_found_error':
      return { errorClass: 'not_found', message };
    case 'request_too_large':
      return { errorClass: 'context_overflow', message };
    case 'rate_limit_error':
      // A spend-limit 429 is not a rate limit: waiting does not restore access until the period resets.
      if (facts.apiErrorCode === 'enforced_spend_limit_reached' || BILLING_TEXT.test(text)) {
        return { errorClass: 'billing', message };
      }
      return withWait('rate_limit');
    case 'api_error':
      return withWait('server_error');
    case 'timeout_error':
      return withWait('timeout');
    case 'overloaded_error':
      return withWait('overloaded');
    default:
      return undefined;
  }
}

/** The wait GitHub's headers imply: `retry-after` first, then the primary window's reset. */
function githubWait(facts: ErrorFacts, now: number | undefined): number | undefined {
  const { resetAt } = githubRateLimitFromHeaders(facts.headers);
  const untilReset = resetAt !== undefined && now !== undefined ? Math.max(0, resetAt - now) : undefined;
  return retryAfterMsFromHeaders(facts.headers, now) ?? untilReset;
}

/**
 * GitHub's rate limits, whatever the channel (REST 403/429, GraphQL RATE_LIMITED): secondary by its
 * wording; primary by an exhausted quota header, or because the caller already knows (`known`),
 * in which case `fallbackMs` stands in for a wait that no header gives.
 */
function githubRateLimit(
  facts: ErrorFacts,
  now: number | undefined,
  message: string,
  known?: { fallbackMs: number | undefined },
): Decision | undefined {
  if (SECONDARY_TEXT.test(joined(facts))) {
    const retryAfterMs = retryAfterMsFromHeaders(facts.headers, now) ?? GITHUB_SECONDARY_DEFAULT_MS;
    return { errorClass: 'rate_limit', rateLimit: 'secondary', message, retryAfterMs };
  }
  // An exhausted quota header means the reset decides; without `now` that wait stays unknown, not guessed.
  const exhausted = githubRateLimitFromHeaders(facts.headers).remaining === 0;
  if (!exhausted && !known) return undefined;
  const retryAfterMs = githubWait(facts, now) ?? (exhausted ? undefined : known?.fallbackMs);
  return { errorClass: 'rate_limit', rateLimit: 'primary', message, retryAfterMs };
}

export function fromGraphql(facts: ErrorFacts, now: number | undefined): Decision | undefined {
  const first = facts.graphqlErrors?.[0];
  if (!first || !facts.graphqlErrors) return undefined;
  const types = facts.graphqlErrors.map((e) => e.type);
  const message = `GraphQL ${first.type ?? 'error'}: ${first.message}`;
  if (types.includes('RATE_LIMITED') || SECONDARY_TEXT.test(first.message)) {
    return githubRateLimit(facts, now, message, { fallbackMs: GITHUB_SECONDARY_DEFAULT_MS });
  }
  if (types.includes('FORBIDDEN') || types.includes('INSUFFICIENT_SCOPES'))
    return { errorClass: 'permission', message };
  if (types.includes('NOT_FOUND')) return { errorClass: 'not_found', message };
  if (
    types.includes('INTERNAL') ||
    types.includes('SERVICE_UNAVAILABLE') ||
    GRAPHQL_TRANSIENT_TEXT.test(first.message)
  ) {
    return { errorClass: 'server_error', message };
  }
  return { errorClass: 'invalid_request', message };
}

export function fromStatus(facts: ErrorFacts, now: number | undefined): Decision | undefined {
  const status = facts.status;
  if (status === undefined) return undefined;
  const text = joined(facts);
  const detail = facts.githubMessage ?? facts.apiMessage ?? facts.messages[0] ?? '';
  const message = detail.startsWith(String(status)) ? detail : `${status} ${detail}`.trim();
  const retryAfterMs = retryAfterMsFromHeaders(facts.headers, now);
  const decide = (errorClass: ErrorClass): Decision => ({ errorClass, message, retryAfterMs });

  if (status === 403 || status === 429) {
    // "API rate limit exceeded" without the x-ratelimit headers (stripped by a proxy) is still one.
    const fallbackMs = facts.source === 'github' ? GITHUB_SECONDARY_DEFAULT_MS : undefined;
    const known = status === 403 && RATE_LIMIT_TEXT.test(text) ? { fallbackMs } : undefined;
    const limited = githubRateLimit(facts, now, message, known);
    if (limited) return limited;
  }
  switch (status) {
    case 400:
      if (BILLING_TEXT.test(text)) return decide('billing');
      if (CONTENT_FILTER_TEXT.test(text)) return decide('content_filter');
      if (CONTEXT_TEXT.test(text)) return decide('context_overflow');
      return decide('invalid_request');
    case 401:
      return decide('auth');
    case 402:
      return decide('billing');
    case 403:
      return decide('permission');
    case 404:
    case 410:
      return decide('not_found');
    case 408:
      return decide('timeout');
    case 409:
      return decide('conflict');
    case 422:
      // "A pull request already exists for …": someone else's state won the race; refresh and retry.
      return decide(ALREADY_EXISTS_TEXT.test(text) ? 'conflict' : 'invalid_request');
    case 413:
      return decide('context_overflow');
    case 429:
      // GitHub documents at least a minute when it gives no wait.
      return facts.source === 'github' && retryAfterMs === undefined
        ? { errorClass: 'rate_limit', message, retryAfterMs: GITHUB_SECONDARY_DEFAULT_MS }
        : decide('rate_limit');
    case 451:
      return decide('content_filter');
    case 504:
      return decide('timeout');
    case 529:
      return decide('overloaded');
    default:
      if (status >= 500) return decide('server_error');
      if (status >= 400) return decide('invalid_request');
      return undefined;
  }
}

const NODE_CODES: Readonly<Record<string, ErrorClass>> = {
  ETIMEDOUT: 'timeout',
  ESOCKETTIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNRESET: 'network',
  ECONNREFUSED: 'network',
  ECONNABORTED: 'network',
  ENOTFOUND: 'network',
  EAI_AGAIN: 'network',
  EPIPE: 'network',
  ENETUNREACH: 'network',
  ENETDOWN: 'network',
  EHOSTUNREACH: 'network',
  EHOSTDOWN: 'network',
  UND_ERR_SOCKET: 'network',
  UND_ERR_CLOSED: 'network',
  UND_ERR_CONNECT: 'network',
  ERR_STREAM_PREMATURE_CLOSE: 'network',
  EACCES: 'permission',
  EPERM: 'permission',
  ENOENT: 'not_found',
};

/** What a connection error code means, for a person who has not memorised them. */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved now',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

export function fromNodeCode(facts: ErrorFacts): Decision | undefined {
  const code = facts.nodeCode;
  const errorClass = code ? NODE_CODES[code] : undefined;
  if (!code || !errorClass) return undefined;
  const detail = facts.messages.at(-1) ?? '';
  const message = detail.includes(code) ? detail : `${code}: ${detail}`;
  const plain = PLAIN_WORDS[code];
  return { errorClass, message: plain ? `${message} (${plain})` : message };
}

export function fromNames(facts: ErrorFacts): Decision | undefined {
  const message = facts.messages[0] ?? '';
  if (facts.namedTimeout) return { errorClass: 'timeout', message };
  if (facts.namedConnection) return { errorClass: 'network', message };
  return undefined;
}
