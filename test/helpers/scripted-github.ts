import { createRedactor } from '../../src/core/redact.js';
import { createGitHubClient, type GitHubClient } from '../../src/github/client.js';
import { FakeClock } from './fake-clock.js';
import { createMemoryLog, type LogEntry } from './memory-log.js';

/** Never reached: the client's `fetch` is the in-process function below. */
export const SCRIPTED_BASE = 'https://api.github.test';

/** One scripted answer: a JSON body, or a status with GitHub's error body. */
export interface ScriptedAnswer {
  status?: number;
  body?: unknown;
  /** Sent as the `ETag` header; a request that repeats it in `If-None-Match` is answered 304. */
  etag?: string;
  /** The path (and query) of the next page, sent as a `Link: <…>; rel="next"` header. */
  next?: string;
}

export interface ScriptedGitHub {
  client: GitHubClient;
  /** Path and query of every request, in order (`/repos/o/r/pulls?state=open&per_page=100`). */
  requests: string[];
  /** The HTTP status of each answer, in the same order (304: answered from the client's ETag). */
  statuses: number[];
  /** Sets (or replaces) the answer to one path and query, matched exactly. */
  answer(pathAndQuery: string, answer: ScriptedAnswer): void;
  log: LogEntry[];
}

/**
 * A GitHub REST API made of exact answers, in process: for the shapes the emulator does not make (a
 * fork's head repository, hand-made labels, statuses in any order). A request nobody scripted gets
 * GitHub's 404, so a wrong URL fails the call instead of passing on a default.
 */
export function scriptedGitHub(repo = { owner: 'octo-org', name: 'widgets' }): ScriptedGitHub {
  const answers = new Map<string, ScriptedAnswer>();
  const requests: string[] = [];
  const statuses: number[] = [];
  const log: LogEntry[] = [];
  const answerTo = (input: string | URL | Request, init?: RequestInit): Response => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const path = `${url.pathname}${url.search}`;
    requests.push(path);
    const scripted = answers.get(path);
    const json = { 'content-type': 'application/json; charset=utf-8' };
    if (!scripted) {
      const body = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' };
      return new Response(JSON.stringify(body), { status: 404, headers: json });
    }
    const sent = new Headers(init?.headers).get('if-none-match');
    if (scripted.etag !== undefined && sent === scripted.etag) {
      return new Response(null, { status: 304, headers: { etag: scripted.etag } });
    }
    const headers: Record<string, string> = { ...json };
    if (scripted.etag !== undefined) headers.etag = scripted.etag;
    if (scripted.next !== undefined) headers.link = `<${SCRIPTED_BASE}${scripted.next}>; rel="next"`;
    return new Response(JSON.stringify(scripted.body ?? {}), { status: scripted.status ?? 200, headers });
  };
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = answerTo(input, init);
    statuses.push(response.status);
    return response;
  };
  const client = createGitHubClient({
    apiUrl: SCRIPTED_BASE,
    graphqlUrl: `${SCRIPTED_BASE}/graphql`,
    token: 'ghp_scripted',
    repo,
    userAgent: 'issueloop/test',
    fetch: fetchImpl as typeof fetch,
    log: createMemoryLog(log),
    clock: new FakeClock(),
    redact: createRedactor(['ghp_scripted']),
    retryUnitMs: 0,
    writeSpacingMs: 0,
  });
  return {
    client,
    requests,
    statuses,
    answer: (pathAndQuery, answer) => void answers.set(pathAndQuery, answer),
    log,
  };
}
