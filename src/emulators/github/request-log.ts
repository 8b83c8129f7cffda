/** One request as the emulator saw it, for tests that assert exact traffic. */
export interface EmulatorRequest {
  method: string;
  /** Path and query relative to the base URL, as sent: `/repos/o/r/issues?labels=x&page=2`. */
  path: string;
  status: number;
  /** Whether it counted against the rate limit (304s, `GET /rate_limit` and refusals do not). */
  charged: boolean;
  /** Lower-cased names; the authorization value is replaced by `[redacted]`. */
  requestHeaders: Record<string, string>;
  body?: unknown;
  /** GraphQL only: from the body's `operationName`, else the document's first named operation. */
  operationName?: string;
}

/** One git request as the emulator's git server saw it, for tests that check which token each used. */
export interface GitRequest {
  method: string;
  /** Path and query as sent: `/octo-org/widgets.git/info/refs?service=git-receive-pack`. */
  path: string;
  service: 'git-upload-pack' | 'git-receive-pack' | undefined;
  status: number;
  /** The token of the request's basic credential (undefined without one), known or not. */
  token: string | undefined;
  /** Whose token it was, when the emulator took it. */
  login?: string;
}

export function loggedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    out[name.toLowerCase()] = name.toLowerCase() === 'authorization' ? '[redacted]' : value;
  }
  return out;
}

/** Bodies are logged parsed when they are JSON, so tests can compare them structurally. */
export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
