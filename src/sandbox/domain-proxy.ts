import { lookup as dnsLookup } from 'node:dns/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  destination,
  forbiddenAddress,
  isLookupName,
  matchesHost,
  normalizeHost,
  parseAuthority,
} from './egress-rules.js';

/**
 * The egress proxy of one sandbox role in one session. Sandboxed processes have no network of their
 * own (a namespace with only loopback); the session's network holder (net-holder.ts) bridges
 * http://127.0.0.1:PROXY_PORT inside to this proxy's Unix socket outside, for the tools that honour
 * HTTP(S)_PROXY (npm, pip, cargo, go, curl, git, Node with NODE_USE_ENV_PROXY). It takes absolute-URL
 * HTTP requests and CONNECT tunnels, checks the name against the role's allowlist and the port, resolves
 * the name once, refuses if any address is the host's own, loopback, private or reserved, and connects
 * to the address it checked (never resolving again: no DNS rebinding).
 */

/** Inside every sandbox: the port the holder's bridge listens on for the egress proxy. */
export const PROXY_PORT = 3128;
/** Inside the `claude` sandbox: the session's model-credential proxy (ANTHROPIC_BASE_URL's port). */
export const MODEL_PORT = 3129;

/**
 * Open connections one role's proxy serves at once; the model proxy and the holders' bridges have the
 * same bound: each connection a sandbox holds is a descriptor of the harness's (or the holder's).
 */
export const MAX_CONNECTIONS = 256;

export type Lookup = (host: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;
export type Connect = (port: number, address: string) => Socket;

/** How the proxy reaches the world; tests map names to documentation addresses and those to loopback. */
export interface EgressNetwork {
  lookup?: Lookup;
  connect?: Connect;
  /** This host's own addresses; os.networkInterfaces() by default, read for every request. */
  hostAddresses?: () => readonly string[];
}

export interface EgressPolicy {
  /** `any`: every public host (`sandbox.network: full`); else the names as in `allow_domains`. */
  hosts: 'any' | readonly string[];
  ports: ReadonlySet<number>;
}

export type Decision = { ok: true; address: string } | { ok: false; status: 403 | 502; reason: string };

function ownAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
}

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/** Whether `host:port` may be reached, and at which address. */
export async function decide(
  rawHost: string,
  port: number,
  policy: EgressPolicy,
  network: EgressNetwork = {},
): Promise<Decision> {
  const host = normalizeHost(rawHost);
  const refuse = (reason: string): Decision => ({ ok: false, status: 403, reason });
  if (!policy.ports.has(port)) return refuse(`port ${port} is not allowed (sandbox.allow_ports)`);
  const literal = isIP(host) !== 0;
  if (!literal && !isLookupName(host)) return refuse('not a host name');
  if (policy.hosts !== 'any' && !matchesHost(host, policy.hosts)) return refuse('not in the allowlist');
  let addresses: readonly string[];
  try {
    addresses = literal ? [host] : (await (network.lookup ?? systemLookup)(host)).map((a) => a.address);
  } catch (err) {
    return { ok: false, status: 502, reason: `cannot resolve: ${(err as Error).message}` };
  }
  if (addresses.length === 0) return { ok: false, status: 502, reason: 'resolves to no address' };
  const own = (network.hostAddresses ?? ownAddresses)();
  for (const address of addresses) {
    const why = forbiddenAddress(address, own);
    if (why) return refuse(literal ? `${why}` : `resolves to ${address}, ${why}`);
  }
  return { ok: true, address: addresses[0] as string };
}

export interface EgressProxy {
  close(): Promise<void>;
}

/** Strips what the client said to the proxy itself. */
function forwardedHeaders(req: IncomingMessage, host: string): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || /^proxy-/i.test(name)) continue;
    headers[name] = value;
  }
  headers.host = host;
  return headers;
}

export async function startEgressProxy(options: {
  socket: string;
  policy: EgressPolicy;
  network?: EgressNetwork;
  /** Called for every refused `host:port` (see blocked-requests.ts). */
  onRefused: (destination: string, reason: string) => void;
}): Promise<EgressProxy> {
  const network = options.network ?? {};
  const connect = network.connect ?? ((port, address) => netConnect(port, address));
  const check = async (host: string, port: number): Promise<Decision> => {
    const decision = await decide(host, port, options.policy, network);
    if (!decision.ok && decision.status === 403) {
      // The destination reaches the PR body: only a host's own characters are shown.
      const name = normalizeHost(host);
      options.onRefused(
        destination(/^[a-z0-9_.:-]{1,253}$/.test(name) ? name : 'invalid-host', port),
        decision.reason,
      );
    }
    return decision;
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('issueloop sandbox: the proxy takes absolute http:// URLs\n');
      return;
    }
    if (target.protocol !== 'http:') {
      res.writeHead(400).end('issueloop sandbox: use CONNECT for https\n');
      return;
    }
    const port = Number(target.port || 80);
    const decision = await check(target.hostname, port);
    if (!decision.ok) {
      res.writeHead(decision.status, { 'content-type': 'text/plain' });
      res.end(`issueloop sandbox: ${destination(target.hostname, port)} refused: ${decision.reason}\n`);
      return;
    }
    const upstream = httpRequest(
      {
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: forwardedHeaders(req, target.host),
        // With createConnection and no agent, Node pools nothing: a socket to one checked address
        // never carries another host's request.
        createConnection: () => connect(port, decision.address),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502).end(`issueloop sandbox: ${err.message}\n`);
      else res.destroy();
    });
    req.pipe(upstream);
  });

  const tunnels = new Set<Socket>();
  server.on('connect', async (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    client.on('error', () => client.destroy());
    const target = parseAuthority(req.url ?? '');
    if (!target) options.onRefused('invalid-host:0', 'not host:port');
    const decision: Decision = target
      ? await check(target.host, target.port)
      : { ok: false, status: 403, reason: 'not host:port' };
    if (!target || !decision.ok) {
      const status = !decision.ok && decision.status === 502 ? '502 Bad Gateway' : '403 Forbidden';
      const reason = decision.ok ? '' : decision.reason;
      client.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\n\r\nissueloop sandbox: ${reason}\n`);
      return;
    }
    const upstream = connect(target.port, decision.address);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('close', () => upstream.destroy());
  });

  // A flood of connections costs the harness, not the sandbox: bounded per role and session.
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socket, () => resolve());
  });
  // The run ends when its work does, not when the last sandbox's proxy connection closes.
  server.unref();
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const tunnel of tunnels) tunnel.destroy();
      }),
  };
}
