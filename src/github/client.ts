import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck';
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import { telemetry } from '../core/telemetry.js';
import { ISSUELOOP } from '../core/telemetry-names.js';
import { type GitHubError, type OperationArea, toGitHubError } from './github-error.js';
import { countingFetch, createRequestMetrics, type RequestMetrics } from './request-metrics.js';
import { retryNotices } from './retry-notices.js';
import { fixedToken, type TokenSource } from './token-source.js';

/**
 * The one GitHub client of a process: Octokit with plugin-throttling (pacing writes, waiting out
 * rate limits a bounded number of times), plugin-retry (5xx and 429) and pagination, `fetch`
 * injected and counted. Every failure leaves through `call`, classified once as a `GitHubError`.
 */

export interface RepoRef {
  owner: string;
  name: string;
}

/** `/repos/<owner>/<name>`, encoded, for the requests built by hand (conditional GETs). */
export function repoPath(repo: RepoRef): string {
  return `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
}

export interface GitHubEndpoints {
  apiUrl: string;
  graphqlUrl: string;
}

export const DEFAULT_API_URL = 'https://api.github.com';

/** `GITHUB_API_URL` and `GITHUB_GRAPHQL_URL` as Actions and GitHub Enterprise set them. */
export function endpointsFromEnv(env: Readonly<Record<string, string | undefined>>): GitHubEndpoints {
  const apiUrl = (env.GITHUB_API_URL || DEFAULT_API_URL).replace(/\/+$/, '');
  const graphqlUrl = (env.GITHUB_GRAPHQL_URL || `${apiUrl}/graphql`).replace(/\/+$/, '');
  return { apiUrl, graphqlUrl };
}

export interface GitHubClientOptions extends GitHubEndpoints {
  /** One token for the whole run; or else `tokenSource`. */
  token?: string;
  /** Asked for the token as each request is sent (an App's tokens are renewed mid-run); wins over `token`. */
  tokenSource?: TokenSource;
  /** A separate token for Projects v2 (the Actions GITHUB_TOKEN cannot reach boards). */
  projectsToken?: string;
  repo: RepoRef;
  userAgent: string;
  fetch: typeof fetch;
  log: Log;
  clock: Clock;
  redact: Redactor;
  /** Milliseconds per second of server-requested wait; tests shrink it. Default 1000. */
  retryUnitMs?: number;
  /** Minimum spacing of writes (GitHub asks for ≥ 1 s between mutations). Default 1000. */
  writeSpacingMs?: number;
  /** Longest primary-limit wait sat out inside a request; longer ones fail as rate_limit. Default 60 s. */
  maxPrimaryWaitSeconds?: number;
  /** Times a request is retried after a secondary rate limit. Default 2. */
  maxSecondaryRetries?: number;
}

type GraphqlFn = Octokit['graphql'];

export interface GitHubClient {
  readonly rest: Octokit;
  readonly graphql: GraphqlFn;
  /** GraphQL with the Projects token when one is set. */
  readonly projectsGraphql: GraphqlFn;
  readonly repo: RepoRef;
  /** Where the repository token comes from (a fixed token, or an App's renewed tokens). */
  readonly tokenSource: TokenSource;
  readonly metrics: RequestMetrics;
  readonly log: Log;
  readonly clock: Clock;
  readonly redact: Redactor;
  /** Runs one GitHub operation; any failure is rethrown as a classified `GitHubError`. */
  call<T>(operation: string, run: () => Promise<T>, area?: OperationArea): Promise<T>;
}

// retryNotices between the two: it sees each failure just before plugin-retry decides on it.
const IssueloopOctokit = Octokit.plugin(throttling, retryNotices, retry);

/**
 * Sets each request's Authorization from `source` as it is sent; on a 401 (GitHub's `Bad
 * credentials`: the token expired or was revoked meanwhile) asks `source` to renew it and sends the
 * request once more, so an App token that runs out mid-request never reaches an issue as a failure.
 */
function authorizeFrom(octokit: Octokit, source: TokenSource): void {
  octokit.hook.wrap('request', async (request, options) => {
    const token = await source.token();
    // No token, no header: an anonymous request, as Octokit without `auth` sends it.
    if (token === '') return request(options);
    options.headers.authorization = `token ${token}`;
    try {
      return await request(options);
    } catch (err) {
      if ((err as { status?: unknown } | null)?.status !== 401) throw err;
      const renewed = await source.renew(token);
      if (renewed === undefined) throw err;
      options.headers.authorization = `token ${renewed}`;
      return request(options);
    }
  });
}

function createOctokit(options: GitHubClientOptions, source: TokenSource, fetchImpl: typeof fetch): Octokit {
  const unit = options.retryUnitMs ?? 1000;
  const spacing = options.writeSpacingMs ?? 1000;
  const maxPrimaryWait = options.maxPrimaryWaitSeconds ?? 60;
  const maxSecondary = options.maxSecondaryRetries ?? 2;
  const log = options.log.child({ component: 'github' });
  const octokit = new IssueloopOctokit({
    baseUrl: options.apiUrl,
    userAgent: options.userAgent,
    request: { fetch: fetchImpl },
    // Octokit's own request log would print at info level, and every non-2xx answer — an expected 304
    // or 404 included — as an error. Failures reach the user once, classified, through `call`; its
    // lines are kept for debugging only.
    log: {
      debug: () => {},
      info: () => {},
      warn: (message: string) => log.warn({}, options.redact(message)),
      error: (message: string) => log.debug({}, options.redact(message)),
    },
    retry: { retryAfterBaseValue: unit, retries: 2 },
    retryNotice: { log, redact: options.redact },
    throttle: {
      retryAfterBaseValue: unit,
      // Own groups, so the pacing (and its test setting) belongs to this client, not the module.
      write: new Bottleneck.Group({ maxConcurrent: 1, minTime: spacing }),
      notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: spacing * 3 }),
      onRateLimit: (retryAfter, request, _octokit, retryCount) => {
        const wait = retryCount < 1 && retryAfter <= maxPrimaryWait;
        log.warn(
          { method: request.method, url: request.url, retryAfterSeconds: retryAfter, retryCount },
          wait
            ? `github: rate limit exhausted, waiting ${retryAfter}s for the reset`
            : `github: rate limit exhausted until the reset in ${retryAfter}s; not waiting inside the request`,
        );
        return wait;
      },
      onSecondaryRateLimit: (retryAfter, request, _octokit, retryCount) => {
        const wait = retryCount < maxSecondary;
        log.warn(
          { method: request.method, url: request.url, retryAfterSeconds: retryAfter, retryCount },
          wait
            ? `github: secondary rate limit, retrying in ${retryAfter}s (retry ${retryCount + 1} of ${maxSecondary})`
            : `github: secondary rate limit again after ${maxSecondary} retries; giving up on this request`,
        );
        return wait;
      },
    },
  });
  authorizeFrom(octokit, source);
  return octokit;
}

/** Whether a GraphQL document is a mutation (a write GitHub asks to be paced), after any comments. */
export function isMutation(query: string): boolean {
  return /^mutation\b/.test(query.replace(/^(?:\s|#[^\n]*\n?)+/, ''));
}

/** One GraphQL function: mutations to the paced client, queries to the unpaced one. */
function byOperation(paced: GraphqlFn, unpaced: GraphqlFn): GraphqlFn {
  const route = (query: unknown, params?: unknown) =>
    typeof query === 'string' && !isMutation(query)
      ? unpaced(query, params as Parameters<GraphqlFn>[1])
      : paced(query as Parameters<GraphqlFn>[0], params as Parameters<GraphqlFn>[1]);
  return Object.assign(route, {
    defaults: paced.defaults,
    endpoint: paced.endpoint,
    paginate: (paced as { paginate?: unknown }).paginate,
  }) as unknown as GraphqlFn;
}

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const metrics = createRequestMetrics();
  const fetchImpl = countingFetch(options.fetch, metrics);
  const source = options.tokenSource ?? fixedToken(options.token ?? '');
  const rest = createOctokit(options, source, fetchImpl);
  // plugin-throttling paces every GraphQL request as a write; only mutations are. Queries go through a
  // client of their own, with the same retries and rate-limit handling and no write spacing.
  const reads = createOctokit({ ...options, writeSpacingMs: 0 }, source, fetchImpl);
  const graphql = byOperation(
    rest.graphql.defaults({ url: options.graphqlUrl }),
    reads.graphql.defaults({ url: options.graphqlUrl }),
  );
  const projectsOctokit = (spacing?: number) =>
    createOctokit(
      { ...options, ...(spacing === undefined ? {} : { writeSpacingMs: spacing }) },
      fixedToken(options.projectsToken as string),
      fetchImpl,
    ).graphql.defaults({ url: options.graphqlUrl });
  const projectsGraphql =
    options.projectsToken && options.projectsToken !== options.token
      ? byOperation(projectsOctokit(), projectsOctokit(0))
      : graphql;
  const { clock, redact } = options;
  return {
    rest,
    graphql,
    projectsGraphql,
    repo: options.repo,
    tokenSource: source,
    metrics,
    log: options.log,
    clock,
    redact,
    call<T>(operation: string, run: () => Promise<T>, area?: OperationArea): Promise<T> {
      const kind = operationKind(operation);
      const attributes = { [ISSUELOOP.githubOperation]: kind };
      return telemetry().span(
        `github ${kind}`,
        attributes,
        async (span) => {
          try {
            return await run();
          } catch (err) {
            const error: GitHubError = toGitHubError(operation, err, {
              now: clock.now(),
              redact,
              ...(area ? { area } : {}),
            });
            span.set({ [ISSUELOOP.errorClass]: error.errorClass });
            throw error;
          }
        },
        { kind: 'client' },
      );
    },
  };
}

/** Words that start what an operation is about (a check's name, a branch, a number): cut there. */
const OBJECT_WORDS = new Set(['of', 'on', 'from', 'to', 'for']);
const KIND_WORDS = 4;

/**
 * The low-cardinality kind of an operation for telemetry: its leading plain lowercase words ("read
 * the annotations of <check>" → "read the annotations"), stopping at the first one that is not, or
 * that names its object. What follows (check names from CI, numbers, branches) reaches no span.
 */
export function operationKind(operation: string): string {
  const words: string[] = [];
  for (const word of operation.split(' ')) {
    if (!/^[a-z]+$/.test(word) || OBJECT_WORDS.has(word) || words.length === KIND_WORDS) break;
    words.push(word);
  }
  return words.length > 0 ? words.join(' ') : 'call';
}
