import { GraphqlResponseError, graphql } from '@octokit/graphql';
import { request } from '@octokit/request';
import { RequestError } from '@octokit/request-error';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyError, GITHUB_SECONDARY_DEFAULT_MS } from '../../../src/core/classify/classify-error.js';
import { closedPort, jsonReply, type ScriptedServer, startServer } from '../../helpers/scripted-server.js';

/**
 * Real Octokit errors: `@octokit/request` and `@octokit/graphql` talk to a loopback server that
 * answers with GitHub's statuses, bodies and headers, so the RequestError / GraphqlResponseError
 * objects are exactly what the adapter will see.
 */

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const RESET_IN_S = 754;
const GITHUB_HEADERS = {
  'x-github-request-id': 'C0DE:1234:5678:9ABC:6740A1B2',
  'x-ratelimit-limit': '5000',
  'x-ratelimit-used': '12',
  'x-ratelimit-resource': 'core',
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function restError(
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  server = await startServer(
    jsonReply(status, data, { ...GITHUB_HEADERS, 'x-ratelimit-remaining': '4988', ...headers }),
  );
  try {
    await request('GET /repos/{owner}/{repo}/issues', {
      owner: 'acme',
      repo: 'widgets',
      baseUrl: server.url,
    });
  } catch (err) {
    return err;
  }
  throw new Error('expected the request to fail');
}

async function graphqlError(errors: unknown[], headers: Record<string, string> = {}): Promise<unknown> {
  server = await startServer(jsonReply(200, { data: null, errors }, { ...GITHUB_HEADERS, ...headers }));
  try {
    await graphql('query { viewer { login } }', {
      baseUrl: server.url,
      headers: { authorization: 'token x' },
    });
  } catch (err) {
    return err;
  }
  throw new Error('expected the query to fail');
}

const docs = (message: string) => ({ message, documentation_url: 'https://docs.github.com/rest' });

describe('classifyError on GitHub REST errors (real Octokit RequestError)', () => {
  const cases: Array<{
    name: string;
    status: number;
    data: unknown;
    headers?: Record<string, string>;
    errorClass: string;
    action: string;
    retryAfterMs: number | undefined;
    rateLimit?: 'primary' | 'secondary';
  }> = [
    {
      name: '401 Bad credentials → auth, fail fast',
      status: 401,
      data: docs('Bad credentials'),
      errorClass: 'auth',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '403 with x-ratelimit-remaining 0 → primary rate limit until the reset',
      status: 403,
      data: docs('API rate limit exceeded for user ID 1.'),
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + RESET_IN_S) },
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: RESET_IN_S * 1000,
      rateLimit: 'primary',
    },
    {
      name: '429 with x-ratelimit-remaining 0 → primary rate limit until the reset',
      status: 429,
      data: docs('API rate limit exceeded for installation ID 42.'),
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 60) },
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: 60_000,
      rateLimit: 'primary',
    },
    {
      name: '403 secondary rate limit with retry-after',
      status: 403,
      data: docs('You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'),
      headers: { 'retry-after': '30' },
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: 30_000,
      rateLimit: 'secondary',
    },
    {
      name: '403 secondary rate limit without retry-after waits 60 s',
      status: 403,
      data: docs(
        'You have exceeded a secondary rate limit and have been temporarily blocked from content creation.',
      ),
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: GITHUB_SECONDARY_DEFAULT_MS,
      rateLimit: 'secondary',
    },
    {
      name: '429 without any rate-limit header waits 60 s',
      status: 429,
      data: docs('Too many requests'),
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: GITHUB_SECONDARY_DEFAULT_MS,
    },
    {
      name: '403 Resource not accessible by integration → permission',
      status: 403,
      data: docs('Resource not accessible by integration'),
      errorClass: 'permission',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '404 Not Found',
      status: 404,
      data: docs('Not Found'),
      errorClass: 'not_found',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '409 conflict → refresh and retry once',
      status: 409,
      data: docs('Git Repository is empty.'),
      errorClass: 'conflict',
      action: 'retry_once',
      retryAfterMs: undefined,
    },
    {
      name: '422 "A pull request already exists" → conflict (refresh, then update the existing one)',
      status: 422,
      data: {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'PullRequest',
            code: 'custom',
            message: 'A pull request already exists for acme:issueloop/issue-7.',
          },
        ],
        documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      },
      errorClass: 'conflict',
      action: 'retry_once',
      retryAfterMs: undefined,
    },
    {
      name: '422 Validation Failed on a field → invalid request',
      status: 422,
      data: {
        message: 'Validation Failed',
        errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }],
        documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue',
      },
      errorClass: 'invalid_request',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '403 "API rate limit exceeded" with the rate-limit headers stripped → rate limit, 60 s',
      status: 403,
      data: docs('API rate limit exceeded for installation ID 123.'),
      headers: { 'x-ratelimit-remaining': '' },
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: GITHUB_SECONDARY_DEFAULT_MS,
      rateLimit: 'primary',
    },
    {
      name: '400 Problems parsing JSON → invalid request',
      status: 400,
      data: docs('Problems parsing JSON'),
      errorClass: 'invalid_request',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '451 repository access blocked → manual review',
      status: 451,
      data: { message: 'Repository access blocked', block: { reason: 'dmca' } },
      errorClass: 'content_filter',
      action: 'manual_review',
      retryAfterMs: undefined,
    },
    {
      name: '502 Bad Gateway → server error, back off',
      status: 502,
      data: { message: 'Server Error' },
      errorClass: 'server_error',
      action: 'retry_backoff',
      retryAfterMs: undefined,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const err = await restError(c.status, c.data, c.headers);
      expect(err).toBeInstanceOf(RequestError);
      const result = classifyError(err, { now: NOW });
      expect(result.errorClass).toBe(c.errorClass);
      expect(result.action).toBe(c.action);
      expect(result.retryAfterMs).toBe(c.retryAfterMs);
      expect(result.rateLimit).toBe(c.rateLimit);
      expect(result.status).toBe(c.status);
      expect(result.source).toBe('github');
    });
  }

  it('401 names the token variables to fix', async () => {
    const result = classifyError(await restError(401, docs('Bad credentials')));
    expect(result.hint).toMatch(/GITHUB_TOKEN.*GH_TOKEN/);
    expect(result.message).toBe('401 Bad credentials');
  });

  it('a primary limit without `now` still classifies, with the wait unknown', async () => {
    const err = await restError(403, docs('API rate limit exceeded'), {
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1795000000',
    });
    const result = classifyError(err);
    expect([result.errorClass, result.rateLimit, result.retryAfterMs]).toEqual([
      'rate_limit',
      'primary',
      undefined,
    ]);
  });

  it("Octokit's synthetic 500 for a refused connection is network, not server_error", async () => {
    let err: unknown;
    try {
      await request('GET /rate_limit', { baseUrl: `http://127.0.0.1:${await closedPort()}` });
    } catch (caught) {
      err = caught;
    }
    expect(err).toBeInstanceOf(RequestError);
    expect((err as RequestError).status).toBe(500);
    const result = classifyError(err);
    expect([result.errorClass, result.action, result.status]).toEqual(['network', 'retry_once', undefined]);
  });
});

describe('classifyError on GitHub GraphQL errors (HTTP 200 with errors[])', () => {
  it('RATE_LIMITED waits until x-ratelimit-reset', async () => {
    const err = await graphqlError(
      [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }],
      {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW / 1000 + 120),
      },
    );
    expect(err).toBeInstanceOf(GraphqlResponseError);
    const result = classifyError(err, { now: NOW });
    expect([result.errorClass, result.action, result.retryAfterMs, result.rateLimit]).toEqual([
      'rate_limit',
      'retry_backoff',
      120_000,
      'primary',
    ]);
  });

  it('RATE_LIMITED without reset headers waits 60 s', async () => {
    const result = classifyError(await graphqlError([{ type: 'RATE_LIMITED', message: 'rate limited' }]), {
      now: NOW,
    });
    expect([result.errorClass, result.retryAfterMs]).toEqual(['rate_limit', GITHUB_SECONDARY_DEFAULT_MS]);
  });

  it('a secondary limit reported as a GraphQL error without a type → secondary rate limit', async () => {
    const err = await graphqlError(
      [{ message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' }],
      {
        'retry-after': '45',
      },
    );
    const result = classifyError(err, { now: NOW });
    expect([result.errorClass, result.rateLimit, result.retryAfterMs]).toEqual([
      'rate_limit',
      'secondary',
      45_000,
    ]);
  });

  it('NOT_FOUND (a wrong project number) → not_found with a GitHub hint', async () => {
    const err = await graphqlError([
      {
        type: 'NOT_FOUND',
        path: ['organization', 'projectV2'],
        locations: [{ line: 1, column: 30 }],
        message: 'Could not resolve to a ProjectV2 with the number 7.',
      },
    ]);
    const result = classifyError(err);
    expect([result.errorClass, result.action, result.retryAfterMs]).toEqual([
      'not_found',
      'fail_fast',
      undefined,
    ]);
    expect(result.message).toBe('GraphQL NOT_FOUND: Could not resolve to a ProjectV2 with the number 7.');
    expect(result.hint).toContain('project number');
  });

  it('FORBIDDEN → permission', async () => {
    const err = await graphqlError([
      { type: 'FORBIDDEN', message: 'Resource not accessible by integration' },
    ]);
    const result = classifyError(err);
    expect([result.errorClass, result.action]).toEqual(['permission', 'fail_fast']);
  });

  it('INSUFFICIENT_SCOPES → permission', async () => {
    const err = await graphqlError([
      {
        type: 'INSUFFICIENT_SCOPES',
        message:
          "Your token has not been granted the required scopes to execute this query. The 'id' field requires one of the following scopes: ['read:project'].",
      },
    ]);
    expect(classifyError(err).errorClass).toBe('permission');
  });

  it('GitHub\'s "Something went wrong while executing your query" → server error, backed off', async () => {
    const err = await graphqlError([
      {
        message:
          'Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include `C0DE:1234` when reporting this issue.',
      },
    ]);
    const result = classifyError(err);
    expect([result.errorClass, result.action]).toEqual(['server_error', 'retry_backoff']);
  });

  it('a parse error without a type → invalid_request', async () => {
    const err = await graphqlError([
      { message: 'Parse error on "}" (RCURLY) at [1, 24]', locations: [{ line: 1, column: 24 }] },
    ]);
    const result = classifyError(err);
    expect([result.errorClass, result.action]).toEqual(['invalid_request', 'fail_fast']);
  });
});
