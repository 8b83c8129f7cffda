import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import {
  createGitHubClient,
  endpointsFromEnv,
  type GitHubClient,
  isMutation,
} from '../../src/github/client.js';
import { GitHubError } from '../../src/github/github-error.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog, type LogEntry } from '../helpers/memory-log.js';

const API = 'https://api.github.test';
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

function client(
  entries: LogEntry[] = [],
  overrides: Partial<Parameters<typeof createGitHubClient>[0]> = {},
): GitHubClient {
  return createGitHubClient({
    apiUrl: API,
    graphqlUrl: `${API}/graphql`,
    token: TOKEN,
    repo: { owner: 'octo-org', name: 'widgets' },
    userAgent: 'issueloop/9.9.9',
    fetch: globalThis.fetch,
    log: createMemoryLog(entries),
    clock: new FakeClock(),
    redact: createRedactor([TOKEN]),
    retryUnitMs: 0,
    writeSpacingMs: 0,
    ...overrides,
  });
}

const repoGet = (gh: GitHubClient) =>
  gh.call('read the repository', () => gh.rest.repos.get({ owner: 'octo-org', repo: 'widgets' }));

// nock patches Node's http and fetch for the whole process: switched on here and off after this file,
// so no later file in the same worker (isolate: false) talks through its interceptors.
beforeAll(() => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
});
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

describe('endpointsFromEnv', () => {
  it('defaults to api.github.com and derives GraphQL from the REST base', () => {
    expect(endpointsFromEnv({})).toEqual({
      apiUrl: 'https://api.github.com',
      graphqlUrl: 'https://api.github.com/graphql',
    });
    expect(endpointsFromEnv({ GITHUB_API_URL: 'https://ghe.example/api/v3/' })).toEqual({
      apiUrl: 'https://ghe.example/api/v3',
      graphqlUrl: 'https://ghe.example/api/v3/graphql',
    });
    expect(
      endpointsFromEnv({
        GITHUB_API_URL: 'https://ghe.example/api/v3',
        GITHUB_GRAPHQL_URL: 'https://ghe.example/api/graphql',
      }).graphqlUrl,
    ).toBe('https://ghe.example/api/graphql');
  });
});

describe('GitHub client', () => {
  it('sends the token, the user agent and the API version to the configured base URL', async () => {
    const scope = nock(API, {
      reqheaders: { authorization: `token ${TOKEN}`, 'user-agent': /^issueloop\/9\.9\.9/ },
    })
      .get('/repos/octo-org/widgets')
      .reply(
        200,
        { default_branch: 'main' },
        { 'x-ratelimit-remaining': '4999', 'x-ratelimit-resource': 'core' },
      );
    const gh = client();
    const res = await repoGet(gh);
    expect(res.data.default_branch).toBe('main');
    expect(scope.isDone()).toBe(true);
    expect(gh.metrics).toMatchObject({ charged: 1, uncharged: 0, rateLimit: { core: { remaining: 4999 } } });
  });

  it('retries a secondary rate limit after its retry-after, logging the wait', async () => {
    const entries: LogEntry[] = [];
    nock(API)
      .get('/repos/octo-org/widgets')
      .reply(
        403,
        {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        },
        { 'retry-after': '7' },
      )
      .get('/repos/octo-org/widgets')
      .reply(200, { default_branch: 'main' });
    const gh = client(entries);
    await expect(repoGet(gh)).resolves.toMatchObject({ status: 200 });
    expect(
      entries.some((e) => e.level === 'warn' && /secondary rate limit, retrying in 7s/.test(e.msg ?? '')),
    ).toBe(true);
    expect(gh.metrics.charged).toBe(2);
  });

  it('gives up on a secondary rate limit after a bounded number of retries, classified rate_limit', async () => {
    nock(API)
      .get('/repos/octo-org/widgets')
      .times(3)
      .reply(403, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '30' });
    const err = await repoGet(client()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect((err as GitHubError).classified).toMatchObject({
      errorClass: 'rate_limit',
      rateLimit: 'secondary',
      retryAfterMs: 30_000,
    });
  });

  it('does not sit out an exhausted primary limit whose reset is far away: rate_limit with the wait', async () => {
    const reset = Math.floor(Date.now() / 1000) + 1800;
    nock(API)
      .get('/repos/octo-org/widgets')
      .reply(
        403,
        { message: 'API rate limit exceeded for user ID 1.' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '1000', 'x-ratelimit-reset': String(reset) },
      );
    const entries: LogEntry[] = [];
    const err = (await repoGet(client(entries)).catch((e: unknown) => e)) as GitHubError;
    expect(err.classified.errorClass).toBe('rate_limit');
    expect(err.classified.rateLimit).toBe('primary');
    expect(entries.some((e) => /not waiting inside the request/.test(e.msg ?? ''))).toBe(true);
  });

  it('waits out a primary limit that resets within the bound, once', async () => {
    const reset = Math.floor(Date.now() / 1000) + 5;
    nock(API)
      .get('/repos/octo-org/widgets')
      .reply(
        403,
        { message: 'API rate limit exceeded' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      )
      .get('/repos/octo-org/widgets')
      .reply(200, { default_branch: 'main' });
    await expect(repoGet(client())).resolves.toMatchObject({ status: 200 });
  });

  it('retries a 502 (plugin-retry) and succeeds', async () => {
    nock(API)
      .get('/repos/octo-org/widgets')
      .reply(502, 'bad gateway')
      .get('/repos/octo-org/widgets')
      .reply(200, {});
    await expect(repoGet(client())).resolves.toMatchObject({ status: 200 });
  });

  it.each([
    [401, { message: 'Bad credentials' }, 'auth', /GITHUB_TOKEN/],
    [403, { message: 'Resource not accessible by integration' }, 'permission', /`repo` scope/],
    [404, { message: 'Not Found' }, 'not_found', /repository slug/],
    [422, { message: 'Validation Failed', errors: [{ code: 'invalid' }] }, 'invalid_request', undefined],
  ] as const)(
    'HTTP %i becomes a classified GitHubError naming the fix',
    async (status, body, errorClass, hint) => {
      nock(API).get('/repos/octo-org/widgets').reply(status, body, { 'x-github-request-id': 'AB:CD' });
      const err = (await repoGet(client()).catch((e: unknown) => e)) as GitHubError;
      expect(err).toBeInstanceOf(GitHubError);
      expect(err.errorClass).toBe(errorClass);
      expect(err.status).toBe(status);
      expect(err.message).toMatch(/^read the repository failed: /);
      if (hint) expect(err.message).toMatch(hint);
      expect(err.message).not.toContain(TOKEN);
    },
  );

  it('turns a GraphQL answer that is HTTP 200 with errors into a typed, classified error', async () => {
    nock(API)
      .post('/graphql')
      .reply(200, {
        data: null,
        errors: [
          { type: 'FORBIDDEN', message: 'Resource not accessible by integration', path: ['repositoryOwner'] },
        ],
      });
    const gh = client();
    const err = (await gh
      .call('resolve the board', () => gh.projectsGraphql('query { viewer { login } }'), 'project')
      .catch((e: unknown) => e)) as GitHubError;
    expect(err.errorClass).toBe('permission');
    expect(err.message).toMatch(/Projects v2 needs a classic token with the `project` scope/);
    expect(err.message).toMatch(/the Actions GITHUB_TOKEN cannot access Projects v2/);
    expect(gh.metrics.graphql).toBe(1);
  });

  it('sends GraphQL to GITHUB_GRAPHQL_URL when it differs from the REST base', async () => {
    const scope = nock('https://ghe.example')
      .post('/api/graphql')
      .reply(200, { data: { viewer: { login: 'x' } } });
    const gh = createGitHubClient({
      apiUrl: 'https://ghe.example/api/v3',
      graphqlUrl: 'https://ghe.example/api/graphql',
      token: TOKEN,
      repo: { owner: 'o', name: 'r' },
      userAgent: 'issueloop/1',
      fetch: globalThis.fetch,
      log: createMemoryLog(),
      clock: new FakeClock(),
      redact: createRedactor([TOKEN]),
      retryUnitMs: 0,
      writeSpacingMs: 0,
    });
    await expect(gh.graphql('query { viewer { login } }')).resolves.toEqual({ viewer: { login: 'x' } });
    expect(scope.isDone()).toBe(true);
  });

  it('counts a network failure and classifies it as network', async () => {
    let calls = 0;
    const refused: typeof fetch = async () => {
      calls += 1;
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    };
    const gh = createGitHubClient({
      ...endpointsFromEnv({ GITHUB_API_URL: API }),
      token: TOKEN,
      repo: { owner: 'octo-org', name: 'widgets' },
      userAgent: 'issueloop/1',
      fetch: refused,
      log: createMemoryLog(),
      clock: new FakeClock(),
      redact: createRedactor([TOKEN]),
      retryUnitMs: 0,
      writeSpacingMs: 0,
    });
    const err = (await repoGet(gh).catch((e: unknown) => e)) as GitHubError;
    expect(err.errorClass).toBe('network');
    expect(gh.metrics.failed).toBe(calls);
    expect(gh.metrics.charged).toBe(0);
  });
});

describe('GitHub write pacing', () => {
  it('tells a mutation from a query, after comments and whitespace', () => {
    expect(isMutation('mutation SetStatus($id: ID!) { x }')).toBe(true);
    expect(isMutation('  # move the item\n  mutation { x }')).toBe(true);
    expect(isMutation('query Trust { x }')).toBe(false);
    expect(isMutation('{ viewer { login } }')).toBe(false);
    expect(isMutation('query mutationCount { x }')).toBe(false);
  });

  it('regression: GraphQL queries are not paced as writes (plugin-throttling queued them behind every mutation)', async () => {
    const log: string[] = [];
    const fetchImpl: typeof fetch = async (_input, init) => {
      const body = String(init?.body ?? '');
      const kind = body.includes('mutation') ? 'mutation' : 'query';
      log.push(kind);
      return new Response(JSON.stringify({ data: { ok: true } }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const gh = client([], { fetch: fetchImpl, writeSpacingMs: 1_000 });
    const mutations = [1, 2, 3].map(() => gh.graphql('mutation { bump { ok } }'));
    // Queued after the mutations, the queries still go out before the paced second mutation.
    const queries = [1, 2, 3].map(() => gh.graphql('query { viewer { login } }'));
    await Promise.all([...mutations, ...queries]);
    expect(log.slice(0, 4).filter((k) => k === 'query')).toHaveLength(3);
    expect(log.filter((k) => k === 'mutation')).toHaveLength(3);
  });
});
