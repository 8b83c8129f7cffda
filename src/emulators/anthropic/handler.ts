import type { RawRequest } from '../github/handler.js';
import { type ApiFailure, errorBody, failure, invalidRequest } from './errors.js';
import type { Outcome } from './messages-endpoint.js';
import { modelInfo, modelList } from './models.js';
import type { AnthropicRequestLog, ModelSpec } from './types.js';

export type { RawRequest } from '../github/handler.js';

/** What the transport sends: a whole body, server-sent events one by one, or nothing ever. */
export type Answer =
  | { kind: 'complete'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'stream'; status: number; headers: Record<string, string>; events: string[] }
  | { kind: 'hang' };

export type AnthropicHandler = (request: RawRequest) => Promise<Answer>;

export interface HandlerDeps {
  apiKey: string;
  /** The base URL's path, without a trailing slash: '' or e.g. '/anthropic'. */
  basePath: string;
  models: Record<string, ModelSpec>;
  log: AnthropicRequestLog[];
  messages(body: unknown): Promise<Outcome>;
  countTokens(body: unknown): Outcome;
}

/** The API's own limit for a Messages request body. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const SECRET_HEADERS = new Set(['authorization', 'x-api-key']);

function loggedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) out[name] = SECRET_HEADERS.has(name) ? '[redacted]' : value;
  return out;
}

function parseBody(text: string): { ok: true; body: unknown } | { ok: false; text: string } {
  if (text === '') return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, text };
  }
}

/** SDK 1.x sends the key as a bearer token; older clients and curl use `x-api-key`. */
function keyOf(headers: Headers): string | undefined {
  const direct = headers.get('x-api-key');
  if (direct) return direct.trim();
  return /^bearer\s+(\S+)$/i.exec(headers.get('authorization')?.trim() ?? '')?.[1];
}

function relativePath(pathname: string, basePath: string): string | undefined {
  if (basePath === '') return pathname;
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined;
}

export function createHandler(deps: HandlerDeps): AnthropicHandler {
  let sequence = 0;

  return async (request) => {
    sequence += 1;
    const requestId = `req_emu${sequence.toString().padStart(20, '0')}`;
    const method = request.method.toUpperCase();
    const rel = relativePath(request.url.pathname, deps.basePath);
    const parsed = parseBody(request.bodyText);
    const body = parsed.ok ? parsed.body : parsed.text;
    const stream =
      parsed.ok && typeof body === 'object' && body !== null && 'stream' in body && body.stream === true;
    const entry: AnthropicRequestLog = {
      method,
      path: `${rel ?? request.url.pathname}${request.url.search}`,
      body,
      headers: loggedHeaders(request.headers),
      stream,
      status: 0,
    };
    deps.log.push(entry);

    const json = (status: number, payload: unknown, extra?: Record<string, string>): Answer => {
      entry.status = status;
      const headers = { 'content-type': 'application/json', 'request-id': requestId, ...extra };
      return { kind: 'complete', status, headers, body: JSON.stringify(payload) };
    };
    const refuse = (f: ApiFailure): Answer =>
      json(f.status, errorBody(f.type, f.message, requestId), f.headers);
    const finish = (outcome: Outcome): Answer => {
      switch (outcome.kind) {
        case 'json':
          return json(200, outcome.body);
        case 'failure':
          return refuse(outcome.failure);
        case 'hang':
          return { kind: 'hang' };
        case 'events':
          entry.status = 200;
          return {
            kind: 'stream',
            status: 200,
            headers: {
              'content-type': 'text/event-stream; charset=utf-8',
              'cache-control': 'no-cache',
              'request-id': requestId,
            },
            events: outcome.events,
          };
      }
    };

    if (rel === undefined) return refuse(failure('not_found_error', 'Not Found'));
    if (Buffer.byteLength(request.bodyText, 'utf8') > MAX_BODY_BYTES) {
      return refuse(failure('request_too_large', 'Request exceeds the maximum allowed number of bytes.'));
    }
    if (keyOf(request.headers) !== deps.apiKey) {
      return refuse(failure('authentication_error', 'invalid x-api-key'));
    }
    if (!request.headers.get('anthropic-version')) {
      return refuse(invalidRequest('anthropic-version: header is required'));
    }
    if (!parsed.ok) return refuse(invalidRequest('invalid request: the body is not valid JSON'));

    if (method === 'POST' && rel === '/v1/messages') return finish(await deps.messages(body));
    if (method === 'POST' && rel === '/v1/messages/count_tokens') return finish(deps.countTokens(body));
    if (method === 'GET' && rel === '/v1/models') return json(200, modelList(deps.models));
    const modelId = method === 'GET' ? /^\/v1\/models\/([^/]+)$/.exec(rel)?.[1] : undefined;
    if (modelId !== undefined) {
      const id = decodeURIComponent(modelId);
      const spec = Object.hasOwn(deps.models, id) ? deps.models[id] : undefined;
      return spec ? json(200, modelInfo(id, spec)) : refuse(failure('not_found_error', `model: ${id}`));
    }
    return refuse(failure('not_found_error', 'Not Found'));
  };
}
