import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Handler, RawResponse } from './handler.js';
import type { ListeningEmulator } from './types.js';

function toResponse(raw: RawResponse, url: string): Response {
  const response = new Response(raw.body, { status: raw.status, headers: raw.headers });
  // Clients report `response.url` in their errors; a constructed Response would say ''.
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

/**
 * A `fetch` that answers from the emulator. Requests for another origin fail the way a refused
 * connection does, with a TypeError, so a client that escapes the base URL is caught at once.
 */
export function createEmulatorFetch(handle: Handler, base: URL): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== base.origin) {
      throw new TypeError(`emulator: unexpected host ${url.host} (${request.method} ${url.href})`);
    }
    request.signal.throwIfAborted();
    const bodyText = await request.text();
    const raw = await handle({ method: request.method, url, headers: request.headers, bodyText });
    request.signal.throwIfAborted();
    return toResponse(raw, url.href);
  };
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
 * Serves the handler on a free loopback port, for processes that cannot take an injected fetch. URLs
 * in responses are built from the listener's own address, whatever `host` header arrives.
 */
export async function listenOnLoopback(handle: Handler, basePath: string): Promise<ListeningEmulator> {
  let origin = '';
  const server = createServer((message, response) => {
    void (async () => {
      try {
        const url = new URL(message.url ?? '/', origin);
        const bodyText = await readBody(message);
        const raw = await handle({
          method: message.method ?? 'GET',
          url,
          headers: toHeaders(message),
          bodyText,
        });
        response.writeHead(raw.status, raw.headers);
        response.end(raw.body ?? undefined);
      } catch (error) {
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
