import type { ErrorClass } from './policy.js';

/**
 * The fallback for unstructured input only (a CLI's log tail, an error with nothing but a message).
 * Structured fields always win. Every pattern carries a real example that the tests replay, so a
 * pattern that stops matching its own example — or that an earlier row shadows — fails CI.
 *
 * Guards keep ordinary content from classifying (openclaw's billing false positives): a bare number
 * such as 402 or 429 counts only next to a status word ("HTTP 429", "status: 402", "Error: 429") or
 * its reason phrase ("429 Too Many Requests"); in a log only lines that read like failures are
 * considered, newest first; and a JSON result line (`claude -p --output-format json`) counts only
 * when it says `"is_error": true`, and then only its result text.
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

function row(errorClass: ErrorClass, source: string, example: string): TextPattern {
  return { errorClass, pattern: new RegExp(source, 'i'), example };
}

/** Checked in this order; the first row that matches a line wins. Specific causes before generic ones. */
export const TEXT_PATTERNS: readonly TextPattern[] = [
  row('aborted', '\\bAbortError\\b', 'AbortError: The user aborted a request.'),
  row('aborted', '(?:request|operation) was aborted', 'Error: Request was aborted.'),

  row('billing', 'enforced_spend_limit_reached', '"details":{"error_code":"enforced_spend_limit_reached"}'),
  row('billing', 'spend limit', "Error: This request would exceed your account's monthly spend limit."),
  row('billing', 'api usage limits', 'API Error: 400 You have reached your specified API usage limits.'),
  row('billing', 'credit balance is too low', 'Credit balance is too low'),
  row('billing', 'billing_error', 'API Error: 402 {"type":"error","error":{"type":"billing_error"}}'),
  row('billing', 'insufficient (?:credits|funds|balance)', 'Error: insufficient credits for this request'),
  row('billing', status(402, 'payment required'), 'HTTP 402 Payment Required'),

  row('context_overflow', 'context[_ ]length', 'Error: context_length exceeded'),
  row(
    'context_overflow',
    'prompt is too long',
    'API Error: 400 prompt is too long: 200082 tokens > 200000 maximum',
  ),
  row('context_overflow', 'input is too long', 'Error: Input is too long for requested model.'),
  row(
    'context_overflow',
    'exceeds? (?:the )?(?:maximum )?(?:token|context) limit',
    'API Error: 400 input length and `max_tokens` exceed context limit: 197000 + 16000 > 200000',
  ),
  row(
    'context_overflow',
    'token limit (?:exceeded|reached)',
    'Error: token limit exceeded for this conversation',
  ),
  row('context_overflow', 'maximum context', "Error: This model's maximum context length is 200000 tokens"),
  row('context_overflow', 'context window', 'Error: conversation no longer fits the context window'),
  row(
    'context_overflow',
    'request_too_large',
    'API Error: 413 {"type":"error","error":{"type":"request_too_large"}}',
  ),

  row('content_filter', 'content[_ ]filter', 'API Error: 400 Output blocked by content filtering policy'),
  row('content_filter', 'output blocked', 'Error: output blocked by policy'),

  // Before auth and permission: GitHub answers a rate limit with 403, and gh prints "HTTP 403: API rate limit".
  row('rate_limit', status(429, 'too many requests'), 'Error 429 Too Many Requests'),
  row(
    'rate_limit',
    '\\brate[_ ]?limit(?:ed|_error)?\\b',
    'HTTP 403: API rate limit exceeded for user ID 1234.',
  ),
  row('rate_limit', 'too many requests', 'Error: Too Many Requests, please slow down'),
  row('rate_limit', 'usage limit reached', 'Claude AI usage limit reached|1795000000'),
  row(
    'rate_limit',
    '\\b(?:\\d+-hour|weekly|session|daily) limit reached',
    '5-hour limit reached ∙ resets 3pm',
  ),

  row('auth', status(401, 'unauthori[sz]ed'), 'Error 401 Unauthorized'),
  row(
    'auth',
    'authentication_error',
    'API Error: 401 {"type":"error","error":{"type":"authentication_error"}}',
  ),
  row(
    'auth',
    'authentication failed',
    "fatal: Authentication failed for 'https://github.com/acme/widgets.git/'",
  ),
  row('auth', '\\bunauthori[sz]ed\\b', 'Error: request unauthorized'),
  row('auth', 'invalid.{0,20}\\bapi.{0,3}key\\b', 'Invalid API key · Please run /login'),
  // Claude Code started without a credential (headless: no ~/.claude login, no key in its environment).
  row('auth', 'not logged in', 'Not logged in · Please run /login'),
  row('auth', 'bad credentials', 'gh: HTTP 401: Bad credentials (https://api.github.com/graphql)'),
  row(
    'auth',
    'oauth token has expired',
    'API Error: 401 OAuth token has expired. Please obtain a new token.',
  ),

  row('permission', status(403, 'forbidden'), 'The requested URL returned error: 403'),
  row(
    'permission',
    'permission_error',
    'API Error: 403 {"type":"error","error":{"type":"permission_error"}}',
  ),
  row(
    'permission',
    'permission denied',
    'remote: Permission to acme/widgets.git denied to bot. fatal: permission denied',
  ),
  row('permission', 'resource not accessible by', 'gh: Resource not accessible by integration (HTTP 403)'),
  row(
    'permission',
    '\\bGH006\\b',
    'remote: error: GH006: Protected branch update failed for refs/heads/main.',
  ),
  row(
    'permission',
    'refusing to allow an? .{0,40}to create or update workflow',
    '! [remote rejected] issueloop/issue-7 (refusing to allow a Personal Access Token to create or update workflow `.github/workflows/ci.yml` without `workflow` scope)',
  ),

  row('overloaded', status(529, 'overloaded'), 'API Error: 529 Overloaded'),
  row(
    'overloaded',
    'overloaded_error',
    '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  ),
  row('overloaded', '\\boverloaded\\b', 'Error: the model is overloaded, try again later'),

  // "timeout-utils.js" is a file name, not a timeout.
  row('timeout', '\\btime[ _-]?out\\b(?![-_./]\\w)', 'Error: Request timeout'),
  row('timeout', '\\btimed out\\b', 'Connection timed out after 30s'),
  row('timeout', 'UND_ERR_\\w*TIMEOUT', 'code: UND_ERR_HEADERS_TIMEOUT'),
  row('timeout', 'ETIMEDOUT', 'Error: connect ETIMEDOUT 140.82.112.6:443'),
  row('timeout', '\\bSIGTERM\\b', 'claude exited: killed by signal SIGTERM'),
  row('timeout', 'deadline exceeded', 'Error: context deadline exceeded'),
  row('timeout', status(504, 'gateway time-?out'), 'HTTP/1.1 504 Gateway Timeout'),

  row(
    'network',
    'ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH',
    'Error: read ECONNRESET',
  ),
  row('network', 'getaddrinfo', 'Error: getaddrinfo failed for api.anthropic.com'),
  row('network', 'dns (?:lookup|resolution|error|failure)', 'Error: DNS lookup failed for api.github.com'),
  row(
    'network',
    'could not resolve host',
    "fatal: unable to access 'https://github.com/acme/w.git/': Could not resolve host: github.com",
  ),
  row('network', 'network (?:error|failure|is unreachable)', 'Error: network is unreachable'),
  row('network', 'connection (?:refused|reset|error|closed)', 'API Error: Connection error.'),
  row('network', 'socket hang up', 'Error: socket hang up'),
  row('network', 'fetch failed', 'TypeError: fetch failed'),
  row(
    'network',
    '\\bcurl (?:18|52|55|56|92)\\b',
    'error: RPC failed; curl 92 HTTP/2 stream 5 was not closed cleanly',
  ),

  row('server_error', status(500, 'internal server error'), 'Error: status code 500'),
  row('server_error', status(502, 'bad gateway'), 'HTTP/1.1 502 Bad Gateway'),
  row('server_error', status(503, 'service unavailable'), 'Error 503 Service Unavailable'),
  row('server_error', '\\bapi_error\\b', 'API Error: 500 {"type":"error","error":{"type":"api_error"}}'),
  row('server_error', 'internal server error', 'Error: Internal Server Error'),

  row('not_found', status(404, 'not found'), 'API Error: 404 model: claude-does-not-exist'),
  row(
    'not_found',
    'not_found_error',
    '{"type":"error","error":{"type":"not_found_error","message":"model: x"}}',
  ),
  row('not_found', 'repository not found', 'remote: Repository not found.'),

  row('conflict', status(409, 'conflict'), 'error: status 409 reference already exists'),
  row('conflict', 'merge conflict', 'CONFLICT (content): Merge conflict in src/app.ts'),
  row(
    'conflict',
    'non-fast-forward|fetch first|stale info',
    ' ! [rejected]        main -> main (fetch first)',
  ),

  row('invalid_request', status(400, 'bad request'), 'Error: HTTP 400 Bad Request'),
  row('invalid_request', status(422, 'unprocessable entity'), 'gh: HTTP 422: Validation Failed'),
  row(
    'invalid_request',
    'invalid_request_error',
    '{"type":"error","error":{"type":"invalid_request_error"}}',
  ),
];

/** Words that make a log line read like a failure; lines without any are ordinary content. */
const FAILURE_WORDS =
  /(error|fail|exception|fatal|panic|denied|refused|rejected|unauthori[sz]ed|forbidden|exceeded|exhausted|timed out|too many|too long|too low|too large|overloaded|unavailable|abort|killed|sigterm|sigkill|deadline|invalid|not found|not logged in|could not|cannot|unable to|limit reached|hang up|conflict|blocked|\bhttp\/\d|\b(?:http|status(?: code)?)\s*[:=]?\s*[45]\d\d\b)/i;
const FAILURE_CODE = /\b(E[A-Z]{4,}|UND_ERR_[A-Z_]+)\b/;

export function looksLikeFailure(line: string): boolean {
  return FAILURE_WORDS.test(line) || FAILURE_CODE.test(line);
}

export interface TextMatch {
  errorClass: ErrorClass;
  line: string;
}

export function matchLine(line: string): TextPattern | undefined {
  return TEXT_PATTERNS.find((candidate) => candidate.pattern.test(line));
}

interface Line {
  text: string;
  /** Known to describe a failure, so it needs no failure-looking words. */
  trusted: boolean;
}

/**
 * A JSON result line (Claude Code's `--output-format json`): `"is_error": false` is not a failure
 * whatever its text says; `"is_error": true` contributes its result text, trusted.
 */
function expandJsonLine(text: string): Line[] | undefined {
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as { is_error?: unknown }).is_error !== 'boolean'
  ) {
    return undefined;
  }
  const record = value as { is_error: boolean; result?: unknown; error?: unknown };
  if (!record.is_error) return [];
  const detail = [record.result, record.error]
    .map((part) => (typeof part === 'string' ? part : part === undefined ? '' : JSON.stringify(part)))
    .join('\n');
  return splitLines(detail).map((line) => ({ text: line, trusted: true }));
}

function splitLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * Classifies free text. `trusted` text is known to describe a failure (an Error's own message), so
 * every line counts; a log tail is read newest line first, failure-looking lines only.
 */
export function classifyText(text: string, trusted = false): TextMatch | undefined {
  const lines: Line[] = splitLines(text).flatMap((line) => expandJsonLine(line) ?? [{ text: line, trusted }]);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line === undefined || (!line.trusted && !looksLikeFailure(line.text))) continue;
    const match = matchLine(line.text);
    if (match) return { errorClass: match.errorClass, line: line.text };
  }
  return undefined;
}
