import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { retry } from '@octokit/plugin-retry';
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import type { ListeningEmulator } from '../../src/emulators/github/types.js';
import { serveOnLoopback } from '../../src/emulators/loopback.js';
import { createGitHubClient, type GitHubClient } from '../../src/github/client.js';
import { GitHubError } from '../../src/github/github-error.js';
import { retryNotices } from '../../src/github/retry-notices.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog, type LogEntry } from '../helpers/memory-log.js';

const TOKEN = 'ghp_retryNotice0123456789abcdefghijklmn';
const servers: ListeningEmulator[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A loopback port nothing listens on: connecting is refused at once. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function client(apiUrl: string, entries: LogEntry[]): GitHubClient {
  return createGitHubClient({
    apiUrl,
    graphqlUrl: `${apiUrl}/graphql`,
    token: TOKEN,
    repo: { owner: 'octo-org', name: 'widgets' },
    userAgent: 'issueloop/9.9.9',
    fetch: globalThis.fetch,
    log: createMemoryLog(entries),
    clock: new FakeClock(),
    redact: createRedactor([TOKEN]),
    // plugin-retry waits (n+1)² units on its own timer: one millisecond each keeps the test fast.
    retryUnitMs: 1,
    writeSpacingMs: 0,
  });
}

const listIssues = (gh: GitHubClient) =>
  gh.call('list the backlog', () => gh.rest.issues.listForRepo({ owner: 'octo-org', repo: 'widgets' }));

const notices = (entries: LogEntry[]) =>
  entries.filter((e) => e.level === 'info' && /retrying \d+\/\d+ in/.test(e.msg ?? ''));

function answering(...statuses: number[]) {
  let calls = 0;
  return async (_request: unknown, response: ServerResponse) => {
    const status = statuses[Math.min(calls++, statuses.length - 1)] ?? 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(status === 200 ? '[]' : JSON.stringify({ message: `upstream broke near ${TOKEN}` }));
  };
}

describe('newcomer: while GitHub cannot be reached, the user sees the retries', () => {
  it('says each retry of a refused connection at info level: the request, the failure, n/N and the wait', async () => {
    const port = await refusedPort();
    const entries: LogEntry[] = [];
    const error = await listIssues(client(`http://127.0.0.1:${port}`, entries)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).errorClass).toBe('network');
    const lines = notices(entries);
    expect(lines.map((e) => e.msg)).toEqual([
      `github: GET /repos/octo-org/widgets/issues: connect ECONNREFUSED 127.0.0.1:${port} (connection refused: nothing listens there); retrying 1/2 in 1 s…`,
      `github: GET /repos/octo-org/widgets/issues: connect ECONNREFUSED 127.0.0.1:${port} (connection refused: nothing listens there); retrying 2/2 in 1 s…`,
    ]);
    // plugin-retry's own waits, (n+1)² units: what the line says is what it waits.
    expect(lines.map((e) => e.fields.waitMs)).toEqual([1, 4]);
  });

  it('says the retry of a server error, redacted, and nothing more once the retry succeeds', async () => {
    const server = await serveOnLoopback('', answering(502, 200));
    servers.push(server);
    const entries: LogEntry[] = [];
    const response = await listIssues(client(server.url, entries));
    expect(response.data).toEqual([]);
    const lines = notices(entries).map((e) => e.msg ?? '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^github: GET \/repos\/octo-org\/widgets\/issues: .*retrying 1\/2 in 1 s…$/);
    expect(lines[0]).toContain('[REDACTED]');
    expect(JSON.stringify(entries)).not.toContain(TOKEN);
  });

  it('says nothing of retries for an answer plugin-retry does not retry (404)', async () => {
    const server = await serveOnLoopback('', answering(404));
    servers.push(server);
    const entries: LogEntry[] = [];
    const error = await listIssues(client(server.url, entries)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).status).toBe(404);
    expect(notices(entries)).toEqual([]);
  });
});

describe('retryNotices: the plugin on its own', () => {
  it("follows plugin-retry's settings: with retries: 1 a 503 is retried once and said once, (1)² units later", async () => {
    const server = await serveOnLoopback('', answering(503, 503));
    servers.push(server);
    const entries: LogEntry[] = [];
    const octokit = new (Octokit.plugin(retryNotices, retry))({
      baseUrl: server.url,
      retry: { retries: 1, retryAfterBaseValue: 2 },
      retryNotice: { log: createMemoryLog(entries), redact: createRedactor([TOKEN]) },
    });
    const error = await octokit.rest.meta.root().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    const lines = notices(entries);
    expect(lines.map((e) => e.fields.waitMs)).toEqual([2]);
    expect(lines[0]?.msg).toMatch(/^github: GET \/: .*\[REDACTED\].*; retrying 1\/1 in 1 s…$/);
  });

  it('does nothing without its options', async () => {
    const server = await serveOnLoopback('', answering(503));
    servers.push(server);
    const octokit = new (Octokit.plugin(retryNotices, retry))({ baseUrl: server.url, retry: { retries: 0 } });
    await expect(octokit.rest.meta.root()).rejects.toMatchObject({ status: 503 });
  });
});
