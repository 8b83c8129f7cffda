import { describe, expect, it } from 'vitest';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { BASE, call, clockedEmulator, DOCUMENTS, graphql, octokit, REPO } from './emulator-fixtures.js';

const NEXT_HOUR = Date.UTC(2026, 10, 21, 13, 0, 0) / 1000;

describe('rate limits', () => {
  it('charges each REST request, reports it in headers, and answers 403 once the budget is gone', async () => {
    const { emulator, advance } = clockedEmulator({ rateLimit: { core: 2 } });
    const first = await call(emulator, 'GET', REPO);
    expect(Object.fromEntries([...first.headers].filter(([name]) => name.startsWith('x-ratelimit')))).toEqual(
      {
        'x-ratelimit-limit': '2',
        'x-ratelimit-remaining': '1',
        'x-ratelimit-used': '1',
        'x-ratelimit-reset': String(NEXT_HOUR),
        'x-ratelimit-resource': 'core',
      },
    );
    await call(emulator, 'POST', `${REPO}/labels`, { body: { name: 'x' } });
    const refused = await call<{ message: string }>(emulator, 'GET', REPO);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/^API rate limit exceeded for user ID 1\./);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const write = await call(emulator, 'POST', `${REPO}/labels`, { body: { name: 'y' } });
    expect(write.status).toBe(403);
    expect(emulator.repoLabels().map((l) => l.name)).toEqual(['x']);

    const limits = await call<{ resources: { core: { remaining: number; used: number; reset: number } } }>(
      emulator,
      'GET',
      '/rate_limit',
    );
    expect(limits.json.resources.core).toEqual({ limit: 2, remaining: 0, used: 2, reset: NEXT_HOUR });
    expect(emulator.requests.map((r) => r.charged)).toEqual([true, true, false, false, false]);

    advance(30 * 60_000);
    expect((await call(emulator, 'GET', REPO)).status).toBe(200);
  });

  it('answers GraphQL with HTTP 200 and RATE_LIMITED once its own budget is gone', async () => {
    const { emulator } = clockedEmulator({ rateLimit: { graphql: 1 } });
    const first = await graphql(emulator, DOCUMENTS.Owner, { owner: 'octo-org' });
    expect(first.headers.get('x-ratelimit-resource')).toBe('graphql');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await graphql(emulator, DOCUMENTS.Owner, { owner: 'octo-org' });
    expect(refused).toMatchObject({
      status: 200,
      json: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] },
    });
    expect((await call(emulator, 'GET', REPO)).status).toBe(200);
    expect(emulator.requests.map((r) => r.charged)).toEqual([true, false, true]);
  });
});

describe('authentication', () => {
  it('answers 401 Bad credentials for unknown and missing tokens, uncharged', async () => {
    const { emulator } = clockedEmulator();
    const unknown = await call(emulator, 'GET', REPO, { headers: { authorization: 'token ghp_nope' } });
    expect(unknown).toMatchObject({
      status: 401,
      json: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' },
    });
    const response = await emulator.fetch(`${BASE}${REPO}`);
    expect(response.status).toBe(401);
    expect(emulator.chargedCount()).toBe(0);
    expect(emulator.requests[0]?.requestHeaders.authorization).toBe('[redacted]');
  });

  it('accepts Bearer tokens and logs request bodies parsed', async () => {
    const { emulator } = clockedEmulator();
    const n = emulator.addIssue({ title: 't', author: 'a' });
    const answer = await call(emulator, 'POST', `${REPO}/issues/${n}/comments`, {
      body: { body: 'hello' },
      headers: { authorization: 'Bearer ghp_emulator' },
    });
    expect(answer.status).toBe(201);
    expect(emulator.requests[0]).toMatchObject({
      method: 'POST',
      status: 201,
      charged: true,
      body: { body: 'hello' },
    });
  });

  it('throws like a refused connection for any other host', async () => {
    const emulator = createGitHubEmulator();
    await expect(emulator.fetch('https://api.github.com/repos/octo-org/widgets')).rejects.toThrow(
      /emulator: unexpected host api\.github\.com/,
    );
    expect(emulator.requests).toEqual([]);
  });

  it('serves a base URL with a path prefix, for REST and for GHES-style GraphQL', async () => {
    const emulator = createGitHubEmulator({ baseUrl: 'https://ghe.test/api/v3' });
    const repo = await octokit(emulator).rest.repos.get({ owner: 'octo-org', repo: 'widgets' });
    expect(repo.data.url).toBe('https://ghe.test/api/v3/repos/octo-org/widgets');
    const ghes = await emulator.fetch('https://ghe.test/api/graphql', {
      method: 'POST',
      headers: { authorization: 'token ghp_emulator' },
      body: JSON.stringify({ query: DOCUMENTS.Owner, variables: { owner: 'octo-org' } }),
    });
    expect(await ghes.json()).toMatchObject({ data: { repositoryOwner: { login: 'octo-org' } } });
    expect(emulator.requests.map((r) => `${r.path} ${r.operationName ?? '-'}`)).toEqual([
      '/repos/octo-org/widgets -',
      '/graphql Owner',
    ]);
    const outside = await emulator.fetch('https://ghe.test/elsewhere', {
      headers: { authorization: 'token ghp_emulator' },
    });
    expect(outside.status).toBe(404);
  });
});

describe('faults', () => {
  it('answers a REST fault before normal handling, the given number of times, charged', async () => {
    const { emulator } = clockedEmulator();
    emulator.failNext({
      method: 'GET',
      path: /\/issues\?/,
      status: 502,
      headers: { 'retry-after': '7' },
      times: 2,
    });
    const first = await call<{ message: string }>(emulator, 'GET', `${REPO}/issues?state=open`);
    expect(first.status).toBe(502);
    expect(first.json.message).toBe('Bad Gateway');
    expect(first.headers.get('retry-after')).toBe('7');
    expect((await call(emulator, 'GET', `${REPO}/issues?state=open`)).status).toBe(502);
    expect((await call(emulator, 'GET', `${REPO}/issues?state=open`)).status).toBe(200);
    expect((await call(emulator, 'POST', `${REPO}/labels`, { body: { name: 'a' } })).status).toBe(201);
    expect(emulator.requests.map((r) => [r.status, r.charged])).toEqual([
      [502, true],
      [502, true],
      [200, true],
      [201, true],
    ]);
  });

  it('matches string paths exactly, returns the given body, and does not charge a 304 fault', async () => {
    const { emulator } = clockedEmulator();
    emulator.failNext({ path: REPO, status: 304 });
    emulator.failNext({ path: `${REPO}/pulls?head=x`, status: 200, body: [] });
    expect((await call(emulator, 'GET', REPO)).status).toBe(304);
    expect((await call(emulator, 'GET', `${REPO}/pulls?head=x`)).json).toEqual([]);
    expect(emulator.requests.map((r) => r.charged)).toEqual([false, true]);
  });

  it('cancels pending faults registered with the same matcher when times is 0', async () => {
    const { emulator } = clockedEmulator();
    emulator.failNext({ path: REPO, status: 500, times: 5 });
    expect((await call(emulator, 'GET', REPO)).status).toBe(500);
    emulator.failNext({ path: REPO, status: 500, times: 0 });
    expect((await call(emulator, 'GET', REPO)).status).toBe(200);
  });

  it('answers a GraphQL fault by operation name with GitHub’s error body', async () => {
    const { emulator } = clockedEmulator();
    emulator.failGraphql({
      operation: 'AddItem',
      errors: [{ type: 'INTERNAL', message: 'Something went wrong.' }],
    });
    emulator.failGraphql({ operation: /repositoryOwner/, errors: [{ message: 'boom' }], status: 502 });
    const owner = await graphql(emulator, DOCUMENTS.Owner, { owner: 'octo-org' });
    expect(owner).toMatchObject({ status: 502, json: { errors: [{ message: 'boom' }] } });
    const add = await graphql(emulator, DOCUMENTS.AddItem, { project: 'x', content: 'y' });
    expect(add).toMatchObject({
      status: 200,
      json: { errors: [{ type: 'INTERNAL', message: 'Something went wrong.' }] },
    });
    expect(emulator.requests.map((r) => [r.operationName, r.charged])).toEqual([
      ['Owner', true],
      ['AddItem', true],
    ]);
  });
});
