import { type Redactor, redact as redactPatterns } from '../redact.js';
import { type ErrorFacts, gatherFacts } from './error-facts.js';
import { githubRateLimitFromHeaders, retryAfterMsFromHeaders } from './headers.js';
import { CLASS_POLICY, type ErrorClass, type RecoveryAction } from './policy.js';
import { classifyText } from './text-patterns.js';

export type ErrorSource = 'anthropic' | 'github' | 'network' | 'text' | 'unknown';

export interface ClassifiedError {
  errorClass: ErrorClass;
  action: RecoveryAction;
  retryable: boolean;
  /** Whether a fallback model is a remedy for this failure. */
  failover: boolean;
  /** How long the server asked us to wait, when it said so (or when a rate-limit reset implies it). */
  retryAfterMs?: number;
  status?: number;
  source: ErrorSource;
  /** GitHub's primary (hourly quota) or secondary (abuse) rate limit. */
  rateLimit?: 'primary' | 'secondary';
  /** One line, redacted, safe to show a user or to write to a comment. */
  message: string;
  /** What a person can do about it, when it is theirs to fix. */
  hint?: string;
}

export interface ClassifyContext {
  /** Epoch ms, to turn reset times and HTTP dates into waits. Without it those waits stay unknown. */
  now?: number;
  redact?: Redactor;
}

/** GitHub's documented minimum wait for a secondary limit without `retry-after`. */
export const GITHUB_SECONDARY_DEFAULT_MS = 60_000;
const MAX_MESSAGE = 300;

interface Decision {
  errorClass: ErrorClass;
  message: string;
  retryAfterMs?: number;
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

function fromAnthropicType(facts: ErrorFacts, now: number | undefined): Decision | undefined {
  const type = facts.apiType;
  if (!type) return undefined;
  const text = facts.apiMessage ?? '';
  const message = `${facts.status ?? ''} ${type}: ${text}`.trim();
  const retryAfterMs = retryAfterMsFromHeaders(facts.headers, now);
  const withWait = (errorClass: ErrorClass): Decision =>
    retryAfterMs === undefined ? { errorClass, message } : { errorClass, message, retryAfterMs };
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

function githubRateLimit(facts: ErrorFacts, now: number | undefined, message: string): Decision | undefined {
  const { remaining, resetAt } = githubRateLimitFromHeaders(facts.headers);
  const retryAfter = retryAfterMsFromHeaders(facts.headers, now);
  if (SECONDARY_TEXT.test(joined(facts))) {
    return {
      errorClass: 'rate_limit',
      rateLimit: 'secondary',
      message,
      retryAfterMs: retryAfter ?? GITHUB_SECONDARY_DEFAULT_MS,
    };
  }
  if (remaining === 0) {
    const decision: Decision = { errorClass: 'rate_limit', rateLimit: 'primary', message };
    const untilReset = resetAt !== undefined && now !== undefined ? Math.max(0, resetAt - now) : undefined;
    const wait = retryAfter ?? untilReset;
    if (wait !== undefined) decision.retryAfterMs = wait;
    return decision;
  }
  return undefined;
}

function fromGraphql(facts: ErrorFacts, now: number | undefined): Decision | undefined {
  const first = facts.graphqlErrors?.[0];
  if (!first || !facts.graphqlErrors) return undefined;
  const types = facts.graphqlErrors.map((e) => e.type);
  const message = `GraphQL ${first.type ?? 'error'}: ${first.message}`;
  if (types.includes('RATE_LIMITED') || SECONDARY_TEXT.test(first.message)) {
    const limited = githubRateLimit(facts, now, message);
    if (limited) return limited;
    const { resetAt } = githubRateLimitFromHeaders(facts.headers);
    const wait =
      resetAt !== undefined && now !== undefined ? Math.max(0, resetAt - now) : GITHUB_SECONDARY_DEFAULT_MS;
    return { errorClass: 'rate_limit', rateLimit: 'primary', message, retryAfterMs: wait };
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

function fromStatus(facts: ErrorFacts, now: number | undefined): Decision | undefined {
  const status = facts.status;
  if (status === undefined) return undefined;
  const text = joined(facts);
  const detail = facts.githubMessage ?? facts.apiMessage ?? facts.messages[0] ?? '';
  const message = detail.startsWith(String(status)) ? detail : `${status} ${detail}`.trim();
  const retryAfterMs = retryAfterMsFromHeaders(facts.headers, now);
  const decide = (errorClass: ErrorClass): Decision =>
    retryAfterMs === undefined ? { errorClass, message } : { errorClass, message, retryAfterMs };

  if (status === 403 || status === 429) {
    const limited = githubRateLimit(facts, now, message);
    if (limited) return limited;
    // "API rate limit exceeded" without the x-ratelimit headers (stripped by a proxy): still a rate limit.
    if (status === 403 && RATE_LIMIT_TEXT.test(text)) {
      const wait = retryAfterMs ?? (facts.source === 'github' ? GITHUB_SECONDARY_DEFAULT_MS : undefined);
      const decision: Decision = { errorClass: 'rate_limit', rateLimit: 'primary', message };
      if (wait !== undefined) decision.retryAfterMs = wait;
      return decision;
    }
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
      if (facts.source === 'github' && retryAfterMs === undefined) {
        return { errorClass: 'rate_limit', message, retryAfterMs: GITHUB_SECONDARY_DEFAULT_MS };
      }
      return decide('rate_limit');
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

function fromNodeCode(facts: ErrorFacts): Decision | undefined {
  const code = facts.nodeCode;
  const errorClass = code ? NODE_CODES[code] : undefined;
  if (!code || !errorClass) return undefined;
  const detail = facts.messages.at(-1) ?? '';
  return { errorClass, message: detail.includes(code) ? detail : `${code}: ${detail}` };
}

function fromNames(facts: ErrorFacts): Decision | undefined {
  const message = facts.messages[0] ?? '';
  if (facts.namedTimeout) return { errorClass: 'timeout', message };
  if (facts.namedConnection) return { errorClass: 'network', message };
  return undefined;
}

function fromText(err: unknown, facts: ErrorFacts): Decision | undefined {
  // A bare string is a log tail: only failure-looking lines count. An error's own message is a failure.
  const match = typeof err === 'string' ? classifyText(err) : classifyText(facts.messages.join('\n'), true);
  return match ? { errorClass: match.errorClass, message: match.line } : undefined;
}

function sourceOf(facts: ErrorFacts, decidedBy: 'structured' | 'text' | 'none'): ErrorSource {
  if (facts.source) return facts.source;
  if (decidedBy === 'text') return 'text';
  if (facts.nodeCode || facts.namedConnection || facts.namedTimeout) return 'network';
  return 'unknown';
}

function oneLine(text: string, redactor: Redactor): string {
  const flat = redactor(text).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

const GITHUB_TEXT = /github|\bgh:|\bgit\b|bad credentials/i;
const ANTHROPIC_TEXT = /anthropic|claude|x-api-key|api key|authentication_error/i;

function hintFor(errorClass: ErrorClass, source: ErrorSource, message: string): string | undefined {
  const github = source === 'github' || (source !== 'anthropic' && GITHUB_TEXT.test(message));
  const anthropic = source === 'anthropic' || (source !== 'github' && ANTHROPIC_TEXT.test(message));
  switch (errorClass) {
    case 'auth':
      if (github) {
        return 'GitHub rejected the token: set a valid GITHUB_TOKEN (or GH_TOKEN) that can access the repository';
      }
      if (anthropic) return 'Anthropic rejected the API key: set a valid ANTHROPIC_API_KEY';
      return 'a credential was rejected: check GITHUB_TOKEN (or GH_TOKEN) for GitHub and ANTHROPIC_API_KEY for Anthropic';
    case 'billing':
      return 'add credits or raise the spend limit in the Anthropic Console (Settings → Limits), then run again';
    case 'permission':
      if (github) {
        return 'the token lacks a permission: a classic token needs the `repo` scope (and `project` for Projects v2); a fine-grained or Actions token needs contents, issues and pull-requests write';
      }
      return 'the credential is not allowed to use this resource; check its permissions';
    case 'not_found':
      if (github)
        return 'check the repository slug and issue or project number, and that the token can see them';
      if (anthropic) return 'check the model id in model.primary and model.fallbacks';
      return undefined;
    case 'content_filter':
      return 'the content was refused; a human needs to review the issue';
    default:
      return undefined;
  }
}

/**
 * Classifies any failure into the closed set, from structured fields first (abort, GraphQL
 * `errors[].type`, Anthropic `error.type`, HTTP status with GitHub's rate-limit headers, Node and
 * undici codes, SDK error names), falling back to the text table only for unstructured input.
 */
export function classifyError(err: unknown, ctx: ClassifyContext = {}): ClassifiedError {
  const redactor = ctx.redact ?? redactPatterns;
  const facts = gatherFacts(err);
  let decision: Decision | undefined;
  let decidedBy: 'structured' | 'text' | 'none' = 'structured';
  if (facts.aborted) {
    decision = { errorClass: 'aborted', message: facts.messages[0] ?? 'aborted' };
  } else {
    decision =
      fromGraphql(facts, ctx.now) ??
      fromAnthropicType(facts, ctx.now) ??
      fromStatus(facts, ctx.now) ??
      fromNodeCode(facts) ??
      fromNames(facts);
  }
  if (!decision) {
    decision = fromText(err, facts);
    decidedBy = decision ? 'text' : 'none';
  }
  const final: Decision = decision ?? {
    errorClass: 'unknown',
    message: facts.messages[0] ?? (typeof err === 'string' ? err : String(err)),
  };
  const policy = CLASS_POLICY[final.errorClass];
  const source = sourceOf(facts, decidedBy);
  const result: ClassifiedError = {
    errorClass: final.errorClass,
    action: policy.action,
    retryable: policy.retryable,
    failover: policy.failover,
    source,
    message: oneLine(final.message, redactor) || final.errorClass,
  };
  if (final.retryAfterMs !== undefined) result.retryAfterMs = final.retryAfterMs;
  if (facts.status !== undefined) result.status = facts.status;
  if (final.rateLimit) result.rateLimit = final.rateLimit;
  const hint = hintFor(final.errorClass, source, result.message);
  if (hint) result.hint = hint;
  return result;
}
