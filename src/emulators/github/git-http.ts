import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname } from 'node:path';
import type { TokenRecord } from './records.js';
import type { GitRequest } from './request-log.js';
import type { Store } from './store.js';
import type { ListeningEmulator } from './types.js';

type Service = NonNullable<GitRequest['service']>;

const SERVICES = new Set<string>(['git-upload-pack', 'git-receive-pack']);
const WRITERS = new Set(['admin', 'maintain', 'write']);

/** The record of a token the emulator takes now: unknown, revoked or expired → undefined, as REST's. */
export function liveTokenOf(store: Store, token: string): TokenRecord | undefined {
  return store.liveToken(token);
}

/** The token of `Authorization: Basic base64(user:token)`, as GitHub takes it (any user, the token as password). */
export function basicToken(header: string | undefined): string | undefined {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header?.trim() ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const token = colon < 0 ? decoded : decoded.slice(colon + 1);
  return token === '' ? undefined : token;
}

/**
 * Whether the token's holder may push: an App's installation token by its `contents` permission (its
 * bot is no collaborator), any other token by its user's role in the repository.
 */
function maySend(store: Store, record: TokenRecord): boolean {
  if (record.permissions !== undefined) return record.permissions.contents === 'write';
  return WRITERS.has(store.roleOf(record.login));
}

interface Route {
  /** After the repository: `/info/refs`, `/git-upload-pack`, `/git-receive-pack`. */
  rest: string;
  service: Service | undefined;
}

/** `/<owner>/<repo>(.git)?/<smart-http path>` of the emulated repository; undefined for anything else. */
function routeOf(store: Store, url: URL): Route | undefined {
  const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?(\/info\/refs|\/git-upload-pack|\/git-receive-pack)$/.exec(
    url.pathname,
  );
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  if (!same(match[1], store.owner.login) || !same(match[2], store.repo.name)) return undefined;
  const rest = match[3];
  const service = rest === '/info/refs' ? url.searchParams.get('service') : rest.slice(1);
  return { rest, service: service !== null && SERVICES.has(service) ? (service as Service) : undefined };
}

function refuse(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(`${text}\n`);
}

/** The CGI environment of `git http-backend` for one request on the bare repository `origin`. */
function cgiEnv(origin: string, message: IncomingMessage, url: URL, rest: string, login: string) {
  const header = (name: string) => {
    const value = message.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const optional: Record<string, string | undefined> = {
    CONTENT_TYPE: header('content-type'),
    CONTENT_LENGTH: header('content-length'),
    HTTP_CONTENT_ENCODING: header('content-encoding'),
    HTTP_GIT_PROTOCOL: header('git-protocol'),
  };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    // Whatever the bare repository holds, no hook of it runs in the test's process.
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'core.hooksPath',
    GIT_CONFIG_VALUE_0: '/dev/null',
    GIT_CONFIG_KEY_1: 'http.receivepack',
    GIT_CONFIG_VALUE_1: 'true',
    GIT_PROJECT_ROOT: dirname(origin),
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: `/${basename(origin)}${rest}`,
    REQUEST_METHOD: message.method ?? 'GET',
    QUERY_STRING: url.search.replace(/^\?/, ''),
    REMOTE_USER: login,
    REMOTE_ADDR: '127.0.0.1',
  };
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) env[name] = value;
  return env;
}

/** Splits a CGI answer's header block (`Status: 200 OK`, `Content-Type: …`) from its body. */
function cgiHead(text: string): { status: number; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers };
}

/** Runs `git http-backend` for the request, streaming the body in and its answer out; resolves with the status. */
function backend(
  origin: string,
  message: IncomingMessage,
  response: ServerResponse,
  env: Record<string, string>,
) {
  return new Promise<number>((resolve) => {
    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let pending: Buffer = Buffer.alloc(0);
    let status = 0;
    let settled = false;
    const fail = () => {
      if (settled) return;
      settled = true;
      if (!response.headersSent) refuse(response, 500, `emulator: git http-backend failed on ${origin}`);
      else response.destroy();
      resolve(status || 500);
    };
    child.on('error', fail);
    message.pipe(child.stdin).on('error', () => undefined);
    child.stdout.on('data', (chunk: Buffer) => {
      if (status !== 0) {
        response.write(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      const text = pending.toString('latin1');
      const end = /\r?\n\r?\n/.exec(text);
      if (!end) return;
      const head = cgiHead(text.slice(0, end.index));
      status = head.status;
      response.writeHead(status, head.headers);
      response.write(pending.subarray(end.index + end[0].length));
    });
    // Once its answer started, it is ended as it stands: git's pkt-lines tell a cut-off answer from a whole one.
    child.on('close', () => {
      if (status === 0) return fail();
      if (settled) return;
      settled = true;
      response.end();
      resolve(status);
    });
  });
}

interface Served {
  status: number;
  record?: TokenRecord;
}

async function serve(
  store: Store,
  message: IncomingMessage,
  response: ServerResponse,
  url: URL,
  token?: string,
) {
  const origin = store.lifecycle.origin?.path;
  const route = routeOf(store, url);
  if (origin === undefined || route === undefined || route.service === undefined) {
    refuse(response, 404, 'Repository not found.');
    return { status: 404 };
  }
  const record = token === undefined ? undefined : liveTokenOf(store, token);
  if (record === undefined) {
    // GitHub's answer to a missing, unknown or expired credential: git then asks for one (and, never
    // interactive here, fails with "could not read Username" or "Authentication failed").
    refuse(response, 401, 'Invalid username or token.', { 'www-authenticate': 'Basic realm="GitHub"' });
    return { status: 401 };
  }
  if (route.service === 'git-receive-pack' && !maySend(store, record)) {
    const repo = `${store.owner.login}/${store.repo.name}`;
    refuse(response, 403, `Permission to ${repo}.git denied to ${record.login}.`);
    return { status: 403, record };
  }
  const env = cgiEnv(origin, message, url, route.rest, record.login);
  return { status: await backend(origin, message, response, env), record } satisfies Served;
}

/**
 * GitHub's git over smart HTTP for the emulated repository, on a free loopback port: `<url>/<owner>/
 * <repo>.git` clones, fetches and pushes `origin` through `git http-backend`, for the holder of a
 * token the emulator takes (basic auth, `x-access-token:<token>`), pushes for those with write
 * access only. As for a private repository, a request without a live token is refused 401. Every
 * request is appended to `log` with the token it carried.
 */
export async function serveGitOverHttp(store: Store, log: GitRequest[]): Promise<ListeningEmulator> {
  if (store.lifecycle.origin === undefined) {
    throw new Error(
      'emulator: serveGit needs a repository to serve: pass the `origin` option (a bare repository)',
    );
  }
  let base = '';
  const server = createServer((message, response) => {
    const url = new URL(message.url ?? '/', base);
    const token = basicToken(message.headers.authorization);
    void serve(store, message, response, url, token).then(
      (served: Served) => {
        const login = served.record?.login;
        log.push({
          method: message.method ?? 'GET',
          path: `${url.pathname}${url.search}`,
          service: routeOf(store, url)?.service,
          status: served.status,
          token,
          ...(login === undefined ? {} : { login }),
        });
      },
      () => response.destroy(),
    );
    // A refused request's body is not read: drain it so the client sees the answer, not a reset.
    response.on('finish', () => message.resume());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/${store.owner.login}/${store.repo.name}.git`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
