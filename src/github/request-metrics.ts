/**
 * Counts every HTTP request the GitHub client really sends (retries included), split into those
 * GitHub charges against the rate limit and those it does not (304 answers to conditional requests
 * and `GET /rate_limit`). The run summary prints it; the benchmark asserts on it.
 */
export interface RequestMetrics {
  /** Requests that count against the primary rate limit (REST and GraphQL). */
  charged: number;
  /** 304 Not Modified answers and rate-limit lookups, which GitHub does not count. */
  uncharged: number;
  /** GraphQL requests, included in `charged`. */
  graphql: number;
  /** Requests that got no HTTP answer at all (network failures). */
  failed: number;
  /** The last rate-limit state GitHub reported, per resource (`core`, `graphql`). */
  rateLimit: Record<string, { limit: number; remaining: number; reset: number }>;
  /** The token's classic OAuth scopes, when GitHub sent `x-oauth-scopes` (classic tokens only). */
  scopes?: string[];
}

export function createRequestMetrics(): RequestMetrics {
  return { charged: 0, uncharged: 0, graphql: 0, failed: 0, rateLimit: {} };
}

function requestUrl(input: Parameters<typeof fetch>[0]): URL {
  if (input instanceof URL) return input;
  return new URL(typeof input === 'string' ? input : input.url);
}

function readRateLimit(headers: Headers, metrics: RequestMetrics): void {
  const resource = headers.get('x-ratelimit-resource');
  const limit = Number(headers.get('x-ratelimit-limit'));
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (resource && headers.has('x-ratelimit-remaining') && Number.isFinite(remaining)) {
    metrics.rateLimit[resource] = { limit, remaining, reset };
  }
  const scopes = headers.get('x-oauth-scopes');
  if (scopes !== null) {
    metrics.scopes = scopes
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
}

/** Wraps `fetch` so that every request and its answer are counted in `metrics`. */
export function countingFetch(inner: typeof fetch, metrics: RequestMetrics): typeof fetch {
  return async (input, init) => {
    const url = requestUrl(input);
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (err) {
      metrics.failed += 1;
      throw err;
    }
    if (response.status === 304 || url.pathname.endsWith('/rate_limit')) {
      metrics.uncharged += 1;
    } else {
      metrics.charged += 1;
      if (url.pathname.endsWith('/graphql')) metrics.graphql += 1;
    }
    readRateLimit(response.headers, metrics);
    return response;
  };
}
