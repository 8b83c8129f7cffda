import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `sandbox.allow_domains`: the agent's commands have no network of their own (a network namespace
 * with only loopback); this proxy, outside the sandbox, is their one way out, and it lets through
 * only the listed hosts. It listens on a Unix socket that the sandbox shows at PROXY_SOCKET, where a
 * small bridge (BRIDGE_SOURCE) makes it reachable as http://127.0.0.1:PROXY_PORT for the tools that
 * honour HTTP(S)_PROXY (npm, pip, curl, git, Node with NODE_USE_ENV_PROXY).
 */

/** Where the sandbox shows the proxy's socket and the bridge, and the port the bridge listens on. */
export const PROXY_SOCKET = '/run/issueloop/proxy.sock';
export const BRIDGE_SCRIPT = '/run/issueloop/bridge.mjs';
export const PROXY_PORT = 3128;
/** Inside the `claude` sandbox: the session's model-credential proxy (ANTHROPIC_BASE_URL's port). */
export const MODEL_PORT = 3129;
/** Written by the bridge once it listens; the command starts only then. */
export const BRIDGE_READY = '/tmp/.issueloop-proxy-ready';

/** The ports an allowed host is reached on: the web's. A registry on another port is not a use case yet. */
export const ALLOWED_PORTS: ReadonlySet<number> = new Set([80, 443]);

/**
 * `registry.npmjs.org` matches itself; `*.example.com` (or `.example.com`) matches its subdomains;
 * only on ports 80 and 443 (an allowed host's ssh or database port is not the registry).
 */
export function isAllowedHost(host: string, allow: readonly string[], port = 443): boolean {
  if (!ALLOWED_PORTS.has(port)) return false;
  const name = host.toLowerCase().replace(/\.$/, '');
  return allow.some((entry) => {
    const rule = entry.toLowerCase();
    if (rule.startsWith('*.')) return name.endsWith(rule.slice(1));
    if (rule.startsWith('.')) return name.endsWith(rule);
    return name === rule;
  });
}

/** Host and port of a CONNECT target (`host:443`, `[::1]:443`). */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(authority);
  if (!match?.[1] || !match[2]) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1], port } : undefined;
}

export type Connect = (port: number, host: string) => Socket;

export interface DomainProxy {
  /** The Unix socket on the host, bound into each sandbox at PROXY_SOCKET. */
  socket: string;
  /** The bridge's source on the host, bound into each sandbox at BRIDGE_SCRIPT. */
  bridge: string;
  close(): Promise<void>;
}

/**
 * Inside the sandbox: listens on 127.0.0.1:<port> and pipes every connection to the proxy's socket;
 * written to a file so that the action's single-file bundle can ship it too.
 */
export const BRIDGE_SOURCE = `import { connect, createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
const [socket, port, ready] = process.argv.slice(2);
createServer((client) => {
  const upstream = connect(socket);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}).listen(Number(port), '127.0.0.1', () => writeFileSync(ready, ''));
`;

function refuse(host: string): string {
  return `issueloop sandbox: ${host} is not in sandbox.allow_domains\n`;
}

export async function startDomainProxy(options: {
  allow: readonly string[];
  /** How the proxy reaches an allowed host (tests map names to loopback servers). */
  connect?: Connect;
  onDenied?: (host: string) => void;
}): Promise<DomainProxy> {
  const connect = options.connect ?? ((port, host) => netConnect(port, host));
  const dir = mkdtempSync(join(tmpdir(), 'issueloop-proxy-'));
  const socket = join(dir, 'proxy.sock');
  const bridge = join(dir, 'bridge.mjs');
  writeFileSync(bridge, BRIDGE_SOURCE);

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('issueloop sandbox: the proxy takes absolute URLs\n');
      return;
    }
    const port = Number(target.port || 80);
    if (target.protocol !== 'http:' || !isAllowedHost(target.hostname, options.allow, port)) {
      options.onDenied?.(target.hostname);
      res.writeHead(403, { 'content-type': 'text/plain' }).end(refuse(target.hostname));
      return;
    }
    const upstream = httpRequest(
      {
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: { ...req.headers, host: target.host },
        createConnection: () => connect(port, target.hostname),
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

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = parseAuthority(req.url ?? '');
    if (!target || !isAllowedHost(target.host, options.allow, target.port)) {
      const host = target ? `${target.host}:${target.port}` : String(req.url);
      options.onDenied?.(host);
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${refuse(host)}`);
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  // The run ends when its work does, not when the last sandbox's proxy connection closes.
  server.unref();
  return {
    socket,
    bridge,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).finally(() => rmSync(dir, { recursive: true, force: true })),
  };
}
