import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_CONNECTIONS } from './domain-proxy.js';
import { apiError, callOf, forward, type Via } from './model-forward.js';
import { type ModelCredential, presented, sameKey } from './model-headers.js';
import { type BodyPool, type CallFacts, inspectBody, MAX_HELD_BYTES, readBody } from './model-request.js';
import { cutOffUsage } from './model-tokens.js';
import type { ModelResponseUsage } from './model-usage.js';

export type { ModelCredential } from './model-headers.js';
export type { CallFacts } from './model-request.js';
export type { ModelResponseUsage, ModelUsage } from './model-usage.js';

/**
 * The session's model-credential proxy: the `claude` process talks to it (ANTHROPIC_BASE_URL) with a
 * placeholder credential, and it alone holds the real one, added to each request it forwards to the
 * configured endpoint. It forwards only the API calls Claude Code needs to work, refuses the rest
 * with a 403 and counts them, and reads each response's usage as it streams through, so the session's
 * tokens and cost come from what the API returned rather than from what the CLI says. It reads each
 * allowed call's body first (model-request.ts): one that would make the API reach out for the caller
 * is refused and counted too, and its owner's `admit` weighs the rest (the budget, model-budget.ts).
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
  /**
   * Each Messages response's model and usage, when it ends (or breaks off); a call its client hung
   * up on before the end, at what it may have cost (model-tokens.ts cutOffUsage).
   */
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
  /**
   * Asked before each allowed call is forwarded, with what its body says: a refusal (e.g. the
   * session's budget is spent), or an admission, whose `release` is called once the call has ended
   * and its usage (if any) has been told. The answer may wait (a call queued behind others).
   */
  admit?: (call: string, facts: CallFacts) => Admission | Promise<Admission>;
}

/** What `admit` answers: a refusal, or the call goes ahead (and what to do once it has ended). */
export type Admission = Refusal | { release(): void } | undefined;

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

function listen(server: Server, where: string | { port: 0; host: '127.0.0.1' }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (typeof where === 'string') server.listen(where, () => resolve());
    else server.listen(where.port, where.host, () => resolve());
  });
}

/** An admitted call: the body to forward, what it said, and what to give back once it has ended. */
interface Admitted {
  body: Buffer;
  facts: CallFacts;
  release: () => void;
}

/**
 * The call to forward once admitted, or undefined when the proxy answered it itself: a body too
 * large (or too many held at once: `pool`), one that asks the API to reach out (model-request.ts),
 * a refusal of `admit`, a client gone. The body's bytes are given back to `pool` by `release`.
 */
async function admitted(
  req: IncomingMessage,
  res: ServerResponse,
  call: string,
  options: Pick<ModelProxyOptions, 'admit'> & { pool: BodyPool },
  tally: (refused: string) => void,
): Promise<Admitted | undefined> {
  const read = await readBody(req, options.pool);
  const inspected = 'refusal' in read ? read : inspectBody(call, read.body, req.headers);
  let size = 'size' in read ? read.size : 0;
  const giveBack = () => {
    options.pool.held -= size;
    size = 0;
  };
  if ('refusal' in inspected) {
    giveBack();
    const { status, type, reason } = inspected.refusal;
    tally(`${call} (${reason})`);
    if (!res.destroyed) apiError(res, status, type, `${call} with ${reason} is refused`);
    return undefined;
  }
  const admission = await options.admit?.(call, inspected.facts);
  if (admission && 'status' in admission) {
    giveBack();
    if (!res.destroyed) apiError(res, admission.status, admission.type, admission.message);
    return undefined;
  }
  const release = () => {
    giveBack();
    admission?.release();
  };
  // The client went away while its call waited: nothing to forward.
  if (res.destroyed || req.socket.destroyed) {
    release();
    return undefined;
  }
  return { body: inspected.body, facts: inspected.facts, release };
}

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const upstream = new URL(options.upstream);
  const via: Via = {
    upstream,
    basePath: upstream.pathname.replace(/\/+$/, ''),
    credential: options.credential,
  };
  const refusals = new Map<string, number>();
  const pool: BodyPool = { held: 0, max: MAX_HELD_BYTES };
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
    inFlight += 1;
    const failed = () => {
      if (!res.headersSent && !res.destroyed) apiError(res, 500, 'api_error', 'the proxy failed');
      return undefined;
    };
    void admitted(req, res, target.call, { ...options, pool }, tally)
      .catch(failed)
      .then((call) => {
        if (!call) return settle();
        let done = false;
        forward(req, call.body, res, target, via, (report, cutOff) => {
          if (done) return;
          done = true;
          // Hung up on before its answer ended: charged what it may have cost (model-tokens.ts).
          const charged = cutOff ? cutOffUsage(report, call.facts) : report;
          if (charged) options.onUsage?.(charged);
          call.release();
          settle();
        });
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
