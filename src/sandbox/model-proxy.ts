import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_CONNECTIONS } from './domain-proxy.js';
import {
  answerHeaders,
  forwardedHeaders,
  type ModelCredential,
  presented,
  sameKey,
} from './model-headers.js';
import { type ModelResponseUsage, usageMeter } from './model-usage.js';

export type { ModelCredential } from './model-headers.js';
export type { ModelResponseUsage, ModelUsage } from './model-usage.js';

/**
 * The session's model-credential proxy: the `claude` process talks to it (ANTHROPIC_BASE_URL) with a
 * placeholder credential, and it alone holds the real one, added to each request it forwards to the
 * configured endpoint. It forwards only the API calls Claude Code needs to work, refuses the rest
 * with a 403 and counts them, and reads each response's usage as it streams through, so the session's
 * tokens and cost come from what the API returned rather than from what the CLI says.
 */

/**
 * The calls the pinned Claude Code (2.1.328) makes against the API with non-essential traffic off:
 * `POST /v1/messages?beta=true`, and `count_tokens` for its context accounting. Anything else (its
 * `HEAD /api/hello` connectivity probe, the models list, files, batches, an OAuth endpoint) is refused.
 */
export const MODEL_API_CALLS: ReadonlySet<string> = new Set([
  'POST /v1/messages',
  'POST /v1/messages/count_tokens',
]);

/** A request the proxy refused, and how often; at most MAX_REFUSED distinct ones are kept. */
export interface RefusedModelRequest {
  request: string;
  count: number;
}

const MAX_REFUSED = 50;

export interface ModelProxyOptions {
  /** The API's base URL (ANTHROPIC_BASE_URL of the harness, https://api.anthropic.com by default). */
  upstream: string;
  credential: ModelCredential;
  /** Each Messages response's model and usage, when it ends (or breaks off). */
  onUsage?: (report: ModelResponseUsage) => void;
  /** A request that was not one of MODEL_API_CALLS, as `METHOD /path`. */
  onRefused?: (request: string) => void;
  /** Also listen on 127.0.0.1:<ephemeral port>: for `claude` unconfined (`sandbox.mode: none`). */
  tcp?: boolean;
  /**
   * The placeholder the session's `claude` was given: a request without it (another local process
   * that found the port) is refused with a 401 and counted, and nothing is forwarded.
   */
  clientKey?: string;
  /** Asked before each allowed call is forwarded: a refusal (e.g. the session's budget is spent), or undefined. */
  admit?: (call: string) => Refusal | undefined;
}

/** A call the proxy answers itself, in the API's error shape. */
export interface Refusal {
  status: number;
  type: string;
  message: string;
}

export interface ModelProxy {
  /** The Unix socket on the host, which the claude sandbox shows at 127.0.0.1:MODEL_PORT. */
  socket: string;
  /** `http://127.0.0.1:<port>` when asked for `tcp`. */
  url?: string;
  refused(): RefusedModelRequest[];
  /**
   * Resolves once no request is in flight (every usage of a finished call has been told), or after
   * `maxWaitMs` at most: a connection its client left open does not hold the session.
   */
  idle(maxWaitMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** An error in the API's own shape, so the CLI reports it as it would the API's. */
function apiError(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({
    type: 'error',
    error: { type, message: `issueloop model proxy: ${message}` },
  });
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

/** `METHOD /path` of a request, its query left out; undefined when the target is not a path. */
function callOf(req: IncomingMessage): { call: string; path: string; search: string } | undefined {
  const raw = req.url ?? '';
  if (!raw.startsWith('/') || raw.startsWith('//')) return undefined;
  const url = new URL(raw, 'http://proxy.invalid');
  return { call: `${req.method ?? 'GET'} ${url.pathname}`, path: url.pathname, search: url.search };
}

function listen(server: Server, where: string | { port: 0; host: '127.0.0.1' }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (typeof where === 'string') server.listen(where, () => resolve());
    else server.listen(where.port, where.host, () => resolve());
  });
}

interface Via {
  upstream: URL;
  /** The base URL's path, without a trailing slash: '' or e.g. '/gateway'. */
  basePath: string;
  credential: ModelCredential;
}

/**
 * One allowed call, forwarded with the real credential and answered as the endpoint answers: the
 * body piped both ways as it comes, the usage read on the way back. `finish` is told once, with the
 * usage when the answer was a Messages response that had any.
 */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  target: { path: string; search: string },
  via: Via,
  finish: (report?: ModelResponseUsage) => void,
): void {
  const send = via.upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(
    {
      protocol: via.upstream.protocol,
      hostname: via.upstream.hostname,
      port: via.upstream.port || undefined,
      method: req.method,
      path: `${via.basePath}${target.path}${target.search}`,
      headers: { ...forwardedHeaders(req.headers, via.credential), host: via.upstream.host },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answerHeaders(answer.headers));
      res.flushHeaders();
      const metered = answer.statusCode === 200 && target.path === '/v1/messages';
      const meter = metered ? usageMeter(answer.headers['content-type']) : undefined;
      answer.on('data', (data: Buffer) => meter?.chunk(data));
      // A response cut off (by the API, or by the client going away) still used what it used.
      answer.on('close', () => {
        if (!answer.complete) res.destroy();
        finish(meter?.end());
      });
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) apiError(res, 502, 'api_error', `the model API is unreachable (${err.message})`);
    else res.destroy();
    finish();
  });
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const upstream = new URL(options.upstream);
  const via: Via = {
    upstream,
    basePath: upstream.pathname.replace(/\/+$/, ''),
    credential: options.credential,
  };
  const refusals = new Map<string, number>();
  let inFlight = 0;
  const waiters: (() => void)[] = [];
  const settle = () => {
    inFlight -= 1;
    if (inFlight > 0) return;
    for (const wake of waiters.splice(0)) wake();
  };

  const tally = (call: string) => {
    if (refusals.has(call) || refusals.size < MAX_REFUSED) refusals.set(call, (refusals.get(call) ?? 0) + 1);
    options.onRefused?.(call);
  };
  const refuse = (res: ServerResponse, call: string) => {
    tally(call);
    apiError(res, 403, 'permission_error', `${call} is not an API call Claude Code needs; refused`);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const target = callOf(req);
    if (!target || !MODEL_API_CALLS.has(target.call)) {
      req.resume();
      refuse(res, target?.call ?? `${req.method ?? 'GET'} ${String(req.url).slice(0, 200)}`);
      return;
    }
    if (options.clientKey !== undefined && !sameKey(presented(req.headers), options.clientKey)) {
      req.resume();
      tally(`${target.call} (without the session's key)`);
      apiError(res, 401, 'authentication_error', 'not the key this session was given');
      return;
    }
    const refusal = options.admit?.(target.call);
    if (refusal) {
      req.resume();
      apiError(res, refusal.status, refusal.type, refusal.message);
      return;
    }
    inFlight += 1;
    let done = false;
    forward(req, res, target, via, (report) => {
      if (done) return;
      done = true;
      if (report) options.onUsage?.(report);
      settle();
    });
  };

  const servers = [createServer(handle)];
  if (options.tcp) servers.push(createServer(handle));
  for (const server of servers) {
    // Each connection `claude`'s sandbox holds is a descriptor of the harness's: bounded as the egress
    // proxy's are (the red team held 2000 through MODEL_PORT).
    server.maxConnections = MAX_CONNECTIONS;
    // CONNECT and upgrades are not API calls: refused and counted like any other.
    server.on('connect', (req: IncomingMessage, client: Socket) => {
      tally(`CONNECT ${String(req.url).slice(0, 200)}`);
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    });
  }
  const dir = mkdtempSync(join(tmpdir(), 'issueloop-model-'));
  const socket = join(dir, 'model.sock');
  const [unix, tcp] = servers as [Server, Server | undefined];
  await listen(unix, socket);
  if (tcp) await listen(tcp, { port: 0, host: '127.0.0.1' });
  // The run ends when its work does, not when `claude` leaves a connection open.
  for (const server of servers) server.unref();
  const port = tcp ? (tcp.address() as AddressInfo).port : undefined;

  return {
    socket,
    ...(port ? { url: `http://127.0.0.1:${port}` } : {}),
    refused: () =>
      [...refusals]
        .map(([request, n]) => ({ request, count: n }))
        .sort((a, b) => b.count - a.count || a.request.localeCompare(b.request)),
    idle: (maxWaitMs = 10_000) =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, maxWaitMs);
            timer.unref();
            waiters.push(() => {
              clearTimeout(timer);
              resolve();
            });
          }),
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
      for (const wake of waiters.splice(0)) wake();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
