import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListeningEmulator } from './github/types.js';

export interface LoopbackRequest {
  method: string;
  url: URL;
  headers: Headers;
  bodyText: string;
}

async function readBody(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function toHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/**
 * Serves an emulator on a free loopback port, for clients that cannot take an injected fetch (child
 * processes, real sockets). URLs are built from the listener's own address, whatever `host` header
 * arrives. `respond` writes the answer; a failure before any header was sent becomes a 500, after
 * that the connection is dropped, as a crashing server's would be. `close()` destroys every
 * connection, hanging ones included.
 */
export async function serveOnLoopback(
  basePath: string,
  respond: (request: LoopbackRequest, response: ServerResponse) => Promise<void>,
): Promise<ListeningEmulator> {
  let origin = '';
  const server = createServer((message, response) => {
    void (async () => {
      try {
        const request = {
          method: message.method ?? 'GET',
          url: new URL(message.url ?? '/', origin),
          headers: toHeaders(message),
          bodyText: await readBody(message),
        };
        await respond(request, response);
      } catch (error) {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`emulator: ${error instanceof Error ? error.message : String(error)}`);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${basePath}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
