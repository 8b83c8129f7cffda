import type { ErrorClass } from './policy.js';

/**
 * The fallback for unstructured input only (a CLI's log tail, an error with nothing but a message).
 * Structured fields always win. Each row carries a real example that the tests replay, so a change
 * of a pattern that stops matching its own example fails CI.
 *
 * Two guards keep ordinary content from classifying (openclaw's billing false positives): a bare
 * number such as 402 or 429 counts only next to a status word ("HTTP 429", "status: 402",
 * "Error: 429") or its reason phrase ("429 Too Many Requests"), and in a multi-line log only lines
 * that read like failures are considered, newest first.
 */

export interface TextPattern {
  errorClass: ErrorClass;
  pattern: RegExp;
  example: string;
}

/** `429` only in a status position: after HTTP/status/error/code, or before its reason phrase. */
function status(code: number, reason: string): string {
  return `(?:\\b(?:http(?:/\\d(?:\\.\\d)?)?|status(?:[ _]?code)?|error(?:[ _]?code)?|api error|code)\\b["':=#\\s]*${code}\\b|\\b${code}\\s+${reason})`;
}

function rx(...parts: string[]): RegExp {
  return new RegExp(parts.join('|'), 'i');
}

/** Checked in this order; the first row that matches a line wins. Specific causes before generic ones. */
export const TEXT_PATTERNS: readonly TextPattern[] = [
  {
    errorClass: 'aborted',
    pattern: rx('\\bAbortError\\b', 'request was aborted', 'operation was aborted'),
    example: 'AbortError: The operation was aborted',
  },
  {
    errorClass: 'billing',
    pattern: rx(
      'enforced_spend_limit_reached',
      'spend limit',
      'api usage limits',
      'credit balance is too low',
      'billing_error',
      'insufficient (?:credits|funds|balance)',
      status(402, 'payment required'),
      'payment required',
    ),
    example: 'API Error: 400 Your credit balance is too low to access the Anthropic API.',
  },
  {
    errorClass: 'context_overflow',
    pattern: rx(
      'context[_ ]length',
      'token limit',
      'maximum context',
      'context window',
      'prompt is too long',
      'input is too long',
      'request_too_large',
    ),
    example: 'API Error: 400 prompt is too long: 200082 tokens > 200000 maximum',
  },
  {
    errorClass: 'content_filter',
    pattern: rx('content[_ ]filter', 'blocked by content', 'output blocked'),
    example: 'API Error: 400 Output blocked by content filtering policy',
  },
  {
    errorClass: 'auth',
    pattern: rx(
      status(401, 'unauthori[sz]ed'),
      'authentication_error',
      'authentication failed',
      '\\bunauthori[sz]ed\\b',
      'invalid[^\\n]{0,40}?\\b(?:api[ _-]?)?key\\b',
      'bad credentials',
      'oauth token has expired',
    ),
    example: 'Invalid API key · Please run /login',
  },
  {
    errorClass: 'permission',
    pattern: rx(
      status(403, 'forbidden'),
      'permission_error',
      'permission denied',
      'resource not accessible by',
    ),
    example: 'remote: Permission to acme/widgets.git denied to bot. fatal: HTTP 403',
  },
  {
    errorClass: 'rate_limit',
    pattern: rx(
      status(429, 'too many requests'),
      '\\brate[_ ]?limit(?:ed|_error)?\\b',
      'too many requests',
      'usage limit reached',
    ),
    example: 'Error 429 Too Many Requests',
  },
  {
    errorClass: 'overloaded',
    pattern: rx(status(529, 'overloaded'), 'overloaded_error', '\\boverloaded\\b'),
    example: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  },
  {
    errorClass: 'timeout',
    pattern: rx(
      '\\btime(?:d)?[ _-]?out\\b',
      'timeout',
      '\\bSIGTERM\\b',
      'deadline exceeded',
      'ETIMEDOUT',
      status(504, 'gateway time-?out'),
    ),
    example: 'Connection timed out after 30s',
  },
  {
    errorClass: 'network',
    pattern: rx(
      'ECONNREFUSED',
      'ECONNRESET',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'getaddrinfo',
      '\\bDNS\\b',
      'network (?:error|failure|is unreachable)',
      'connection (?:refused|reset)',
      'socket hang up',
      'fetch failed',
    ),
    example: 'Error: connect ECONNREFUSED 127.0.0.1:443',
  },
  {
    errorClass: 'server_error',
    pattern: rx(
      status(500, 'internal server error'),
      status(502, 'bad gateway'),
      status(503, 'service unavailable'),
      '\\bapi_error\\b',
      'internal server error',
      'bad gateway',
      'service unavailable',
    ),
    example: 'HTTP/1.1 502 Bad Gateway',
  },
  {
    errorClass: 'not_found',
    pattern: rx(status(404, 'not found'), 'not_found_error'),
    example: 'API Error: 404 {"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}',
  },
  {
    errorClass: 'conflict',
    pattern: rx(status(409, 'conflict'), 'merge conflict'),
    example: 'error: status 409 reference already exists',
  },
  {
    errorClass: 'invalid_request',
    pattern: rx(status(400, 'bad request'), status(422, 'unprocessable entity'), 'invalid_request_error'),
    example:
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}',
  },
];

/** Words that make a log line read like a failure; lines without any are ordinary content. */
const FAILURE_WORDS =
  /(error|fail|exception|fatal|panic|denied|refused|unauthori[sz]ed|forbidden|exceeded|exhausted|timed out|too many|too long|too low|too large|overloaded|unavailable|abort|killed|sigterm|sigkill|deadline|invalid|not found|limit reached|hang up|conflict|blocked|\bhttp\/\d|\b(?:http|status(?: code)?)\s*[:=]?\s*[45]\d\d\b)/i;
const FAILURE_CODE = /\b(E[A-Z]{4,}|UND_ERR_[A-Z_]+)\b/;

export function looksLikeFailure(line: string): boolean {
  return FAILURE_WORDS.test(line) || FAILURE_CODE.test(line);
}

export interface TextMatch {
  errorClass: ErrorClass;
  line: string;
}

function matchLine(line: string): ErrorClass | undefined {
  return TEXT_PATTERNS.find((row) => row.pattern.test(line))?.errorClass;
}

/**
 * Classifies free text. `trusted` text is known to describe a failure (an Error's own message), so
 * every line counts; a log tail is read newest line first, failure-looking lines only.
 */
export function classifyText(text: string, trusted = false): TextMatch | undefined {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line === undefined || (!trusted && !looksLikeFailure(line))) continue;
    const errorClass = matchLine(line);
    if (errorClass) return { errorClass, line };
  }
  return undefined;
}
