/**
 * Reading response headers in the shapes our clients give them: a WHATWG `Headers` (Anthropic SDK,
 * fetch), a plain object with lower-case keys (Octokit), or a Map.
 */
export type HeaderBag = { get(name: string): string | null | undefined } | Record<string, unknown>;

export function isHeaderBag(value: unknown): value is HeaderBag {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readHeader(headers: HeaderBag | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  if (typeof headers.get === 'function') {
    const value = (headers as { get(name: string): unknown }).get(lower);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower) continue;
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

/**
 * The server's requested wait in ms: `retry-after-ms` (Anthropic) first, then `retry-after` as
 * seconds or as an HTTP date (which needs `now`). Negative or unparsable values are ignored.
 */
export function retryAfterMsFromHeaders(headers: HeaderBag | undefined, now?: number): number | undefined {
  const ms = readHeader(headers, 'retry-after-ms');
  if (ms !== undefined) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const after = readHeader(headers, 'retry-after')?.trim();
  if (after === undefined || after === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
  if (now === undefined) return undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface GithubRateLimitHeaders {
  remaining?: number;
  /** Epoch ms at which the primary window resets. */
  resetAt?: number;
}

export function githubRateLimitFromHeaders(headers: HeaderBag | undefined): GithubRateLimitHeaders {
  const remaining = readHeader(headers, 'x-ratelimit-remaining');
  const reset = readHeader(headers, 'x-ratelimit-reset');
  const out: GithubRateLimitHeaders = {};
  if (remaining !== undefined && /^\d+$/.test(remaining)) out.remaining = Number(remaining);
  if (reset !== undefined && /^\d+$/.test(reset)) out.resetAt = Number(reset) * 1000;
  return out;
}
