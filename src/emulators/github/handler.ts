import { STATUS_CODES } from 'node:http';
import type { AppRegistry } from './app-state.js';
import type { Faults } from './faults.js';
import { graphqlQueryText, operationNameOf, runGraphql } from './graphql-endpoint.js';
import { sha1 } from './ids.js';
import type { RateLimiter, Resource } from './rate-limit.js';
import { hasScopes, type TokenRecord } from './records.js';
import { errorReply, notFound, REST_DOCS, type Reply } from './replies.js';
import { type EmulatorRequest, loggedHeaders, parseBody } from './request-log.js';
import { dispatch, type Route } from './router.js';
import { appEndpoint } from './routes-apps.js';
import { emulatorFile } from './routes-checks.js';
import { htmlBaseFor } from './serialize.js';
import type { Store } from './store.js';

export interface RawRequest {
  method: string;
  /** Absolute, on the base the request came in on (the configured one, or the loopback listener's). */
  url: URL;
  headers: Headers;
  bodyText: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Null for statuses that carry no body (204, 304). */
  body: string | null;
}

export interface HandlerDeps {
  store: Store;
  rate: RateLimiter;
  /** Unauthenticated callers get their own small budget, as on GitHub. */
  anonymousRate: RateLimiter;
  faults: Faults;
  /** The Apps a test registered: their endpoints take a JWT, not a token. */
  apps: AppRegistry;
  routes: readonly Route[];
  log: EmulatorRequest[];
  /** The base URL's path, without a trailing slash: '' or e.g. '/api/v3'. */
  basePath: string;
}

export type Handler = (request: RawRequest) => Promise<RawResponse>;

/** The path relative to the base, or undefined outside it; GHES clients post GraphQL to /api/graphql. */
function relativePath(pathname: string, basePath: string): string | undefined {
  if (basePath.endsWith('/api/v3') && pathname === `${basePath.slice(0, -'/v3'.length)}/graphql`) {
    return '/graphql';
  }
  if (basePath === '') return pathname;
  if (pathname === basePath) return '/';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined;
}

function tokenOf(headers: Headers, store: Store): TokenRecord | undefined {
  const match = /^(?:token|bearer)\s+(\S+)$/i.exec(headers.get('authorization')?.trim() ?? '');
  return match?.[1] ? store.liveToken(match[1]) : undefined;
}

function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const strong = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === strong;
  });
}

function faultReply(status: number, headers: Record<string, string> | undefined, body: unknown): Reply {
  if (body !== undefined) return { status, body, ...(headers ? { headers } : {}) };
  const base = status >= 400 ? errorReply(status, STATUS_CODES[status] ?? 'Error') : { status };
  return headers ? { ...base, headers } : base;
}

/** What GitHub tells about the token on every answer: scopes, OAuth app, expiry. */
function tokenHeaders(token: TokenRecord): Record<string, string> {
  const headers: Record<string, string> = {};
  if (hasScopes(token)) headers['x-oauth-scopes'] = token.scopes.join(', ');
  if (token.clientId !== undefined) headers['x-oauth-client-id'] = token.clientId;
  // A PAT's expiry; an App's installation token says when it expires in the answer that minted it.
  if (token.expiresAt !== undefined && token.kind !== 'installation') {
    // GitHub's format: `2026-12-31 23:59:59 UTC`.
    const at = new Date(token.expiresAt).toISOString();
    headers['github-authentication-token-expiration'] = `${at.slice(0, 10)} ${at.slice(11, 19)} UTC`;
  }
  return headers;
}

/** The emulator's answer as GitHub sends it: its headers, the rate limit's, the body as text; logged. */
function respond(
  request: {
    entry: EmulatorRequest;
    requestId: string;
    resource: Resource;
    token: ReturnType<typeof tokenOf>;
  },
  reply: Reply,
  charged: boolean,
  limiter: HandlerDeps['rate'],
): RawResponse {
  const { entry, requestId, resource, token } = request;
  entry.status = reply.status;
  entry.charged = charged;
  const headers: Record<string, string> = {
    'x-github-request-id': requestId,
    'x-github-media-type': 'github.v3; format=json',
    'x-github-api-version-selected': '2022-11-28',
    ...limiter.headers(resource),
  };
  if (token) Object.assign(headers, tokenHeaders(token));
  let text: string | null = null;
  if (reply.body !== undefined && reply.status !== 204 && reply.status !== 304) {
    text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    headers['content-type'] =
      typeof reply.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  }
  return { status: reply.status, headers: { ...headers, ...reply.headers }, body: text };
}

/** The request as the log keeps it: method, path and query, headers, body, GraphQL operation. */
function logEntry(
  request: { url: URL; headers: Headers },
  seen: { method: string; rel: string; body: unknown; isGraphql: boolean },
): EmulatorRequest {
  const entry: EmulatorRequest = {
    method: seen.method,
    path: `${seen.rel}${request.url.search}`,
    status: 0,
    charged: false,
    requestHeaders: loggedHeaders(request.headers),
  };
  if (seen.body !== undefined) entry.body = seen.body;
  if (seen.isGraphql) {
    const name = operationNameOf(seen.body);
    if (name !== undefined) entry.operationName = name;
  }
  return entry;
}

export function createHandler(deps: HandlerDeps): Handler {
  const { store, rate, faults, log } = deps;
  let sequence = 0;

  return async (request) => {
    sequence += 1;
    const requestId = `E${sequence.toString(16).toUpperCase().padStart(4, '0')}:EMU0:0:0:0`;
    const method = request.method.toUpperCase();
    const relative = relativePath(request.url.pathname, deps.basePath);
    const inside = relative !== undefined;
    const rel = relative ?? request.url.pathname;
    const body = parseBody(request.bodyText);
    const isGraphql = inside && rel === '/graphql';
    const resource: Resource = isGraphql ? 'graphql' : 'core';
    const entry = logEntry(request, { method, rel, body, isGraphql });
    log.push(entry);
    const token = tokenOf(request.headers, store);

    const finish = (reply: Reply, charged: boolean, limiter = rate): RawResponse =>
      respond({ entry, requestId, resource, token }, reply, charged, limiter);

    const fault = faults.takeRest(method, entry.path);
    if (fault) {
      const charged = fault.status !== 304 && rate.charge(resource);
      return finish(faultReply(fault.status, fault.headers, fault.body), charged);
    }

    // Pre-signed downloads (job logs) stand for GitHub's storage hosts: no token, no rate limit.
    const file = inside && method === 'GET' ? emulatorFile({ store, url: request.url }, rel) : undefined;
    if (file) {
      entry.status = file.status;
      const headers = { 'content-type': 'text/plain; charset=utf-8' };
      return { status: file.status, headers, body: String(file.body ?? '') };
    }

    const urls = { api: `${request.url.origin}${deps.basePath}`, html: htmlBaseFor(request.url.origin) };
    // An App's own requests are not charged to the installation's rate limit.
    const authorization = request.headers.get('authorization');
    const app = inside
      ? appEndpoint({ apps: deps.apps, store, method, rel, authorization, urls })
      : undefined;
    if (app) return finish(app, false);

    if (!token) {
      deps.anonymousRate.charge('core');
      const docs = isGraphql ? 'https://docs.github.com/graphql' : REST_DOCS;
      return finish(
        { status: 401, body: { message: 'Bad credentials', documentation_url: docs, status: '401' } },
        false,
        deps.anonymousRate,
      );
    }

    const user = store.ensureUser(token.login);
    const limited = `API rate limit exceeded for user ID ${user.id}.`;

    if (isGraphql) {
      if (method !== 'POST') return finish(notFound(), rate.charge(resource));
      if (!rate.charge('graphql')) {
        return finish({ status: 200, body: { errors: [{ type: 'RATE_LIMITED', message: limited }] } }, false);
      }
      const gqlFault = faults.takeGraphql(entry.operationName, graphqlQueryText(body));
      if (gqlFault)
        return finish({ status: gqlFault.status ?? 200, body: { errors: gqlFault.errors } }, true);
      return finish(await runGraphql(body, { store, token, html: urls.html }), true);
    }

    const rateLimited = (): Reply =>
      errorReply(
        403,
        `${limited} If you reach out to GitHub Support for help, please include the request ID ${requestId}.`,
        { documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' },
      );
    const route = (): Reply =>
      inside
        ? dispatch(deps.routes, rel, { method, url: request.url, body, token, store, rate, urls })
        : notFound();

    // Looking at the rate limit costs nothing, even when it is exhausted.
    if (method === 'GET' && rel === '/rate_limit') return finish(route(), false);

    if (method !== 'GET') {
      if (!rate.charge('core')) return finish(rateLimited(), false);
      return finish(route(), true);
    }

    // GETs have no side effects, so the answer can be computed before deciding whether it costs anything.
    const reply = route();
    if (reply.status === 200) {
      const link = reply.headers?.link ?? '';
      const etag = `W/"${sha1(JSON.stringify(reply.body) + link)}"`;
      if (matchesEtag(request.headers.get('if-none-match'), etag)) {
        return finish({ status: 304, headers: { etag } }, false);
      }
      reply.headers = { ...reply.headers, etag };
    }
    if (!rate.charge('core')) return finish(rateLimited(), false);
    return finish(reply, true);
  };
}
