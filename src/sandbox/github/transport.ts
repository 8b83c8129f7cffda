import { serveOnLoopback } from '../loopback.js';
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

/** Serves the handler on a free loopback port, for processes that cannot take an injected fetch. */
export function listenOnLoopback(handle: Handler, basePath: string): Promise<ListeningEmulator> {
  return serveOnLoopback(basePath, async (request, response) => {
    const raw = await handle(request);
    response.writeHead(raw.status, raw.headers);
    response.end(raw.body ?? undefined);
  });
}
