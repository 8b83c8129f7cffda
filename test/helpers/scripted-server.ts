import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';

export interface ScriptedServer {
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

/** An HTTP server on loopback answering with `handler`; records every request it sees. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A server that accepts every request and never answers: for timeouts and aborts. */
export function startSilentServer(): Promise<ScriptedServer> {
  return startServer(() => {});
}

/** Answers every request with one status, JSON body and headers. */
export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}) {
  return (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** A loopback port with nothing listening on it (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}
