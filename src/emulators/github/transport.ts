import { serveOnLoopback } from '../loopback.js';
import type { Handler, RawResponse } from './handler.js';
import type { ListeningEmulator } from './types.js';

function toResponse(raw: RawResponse, url: string, redirected: boolean): Response {
  const response = new Response(raw.body, { status: raw.status, headers: raw.headers });
  // Clients report `response.url` in their errors; a constructed Response would say ''.
  Object.defineProperty(response, 'url', { value: url });
  if (redirected) Object.defineProperty(response, 'redirected', { value: true });
  return response;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/**
 * A `fetch` that answers from the emulator. Requests for another origin fail the way a refused
 * connection does, with a TypeError, so a client that escapes the base URL is caught at once.
 * Redirects are followed as fetch follows them (`redirect: 'follow'`, the default; 'manual' hands
 * the 302 back): 303, and 301/302 after a POST, turn into a bodiless GET.
 */
export function createEmulatorFetch(handle: Handler, base: URL): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    let url = new URL(request.url);
    let method = request.method;
    let bodyText = await request.text();
    const headers = new Headers(request.headers);
    for (let hops = 0; ; hops += 1) {
      if (url.origin !== base.origin) {
        throw new TypeError(`emulator: unexpected host ${url.host} (${method} ${url.href})`);
      }
      request.signal.throwIfAborted();
      const raw = await handle({ method, url, headers, bodyText });
      request.signal.throwIfAborted();
      const location = raw.headers.location;
      if (!REDIRECTS.has(raw.status) || location === undefined || request.redirect === 'manual') {
        return toResponse(raw, url.href, hops > 0);
      }
      if (request.redirect === 'error' || hops >= MAX_REDIRECTS) {
        throw new TypeError(`fetch failed: redirect to ${location} refused`);
      }
      url = new URL(location, url);
      if (raw.status === 303 || (method === 'POST' && raw.status !== 307 && raw.status !== 308)) {
        method = 'GET';
        bodyText = '';
        headers.delete('content-type');
        headers.delete('content-length');
      }
    }
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
