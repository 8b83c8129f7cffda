import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ListeningEmulator } from '../github/types.js';
import { serveOnLoopback } from '../loopback.js';
import type { Answer, AnthropicHandler } from './handler.js';

/** Settles with `work`, or rejects with the abort reason as soon as `signal` fires (then `work` is left). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function eventStream(events: readonly string[], signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // An abort after the headers arrived must still end the body, as a dropped connection would.
      signal.addEventListener('abort', () => controller.error(signal.reason), { once: true });
    },
    // One event per read, so clients see the events in separate chunks, as over a network.
    pull(controller) {
      const event = events[next];
      next += 1;
      if (event === undefined) controller.close();
      else controller.enqueue(encoder.encode(event));
    },
  });
}

function toResponse(answer: Exclude<Answer, { kind: 'hang' }>, url: string, signal: AbortSignal): Response {
  const body = answer.kind === 'complete' ? answer.body : eventStream(answer.events, signal);
  const response = new Response(body, { status: answer.status, headers: answer.headers });
  // Clients report `response.url` in their errors; a constructed Response would say ''.
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

/**
 * A `fetch` that answers from the emulator. Requests for another origin fail the way a refused
 * connection does, with a TypeError, so a client that escapes the base URL is caught at once. A `hang`
 * only ends when the request's signal aborts.
 */
export function createEmulatorFetch(handle: AnthropicHandler, base: URL): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== base.origin) {
      throw new TypeError(`emulator: unexpected host ${url.host} (${request.method} ${url.href})`);
    }
    // Not `request.signal`: undici links it to the caller's signal through a WeakRef, so once the
    // Request is garbage collected a hanging call could no longer be aborted.
    const signal = init?.signal ?? (input instanceof Request ? input.signal : new AbortController().signal);
    signal.throwIfAborted();
    const bodyText = await request.text();
    const answer = await untilAborted(
      handle({ method: request.method, url, headers: request.headers, bodyText }),
      signal,
    );
    if (answer.kind === 'hang') return untilAborted(new Promise<Response>(() => {}), signal);
    signal.throwIfAborted();
    return toResponse(answer, url.href, signal);
  };
}

/**
 * Serves the handler on a free loopback port: events are written one per event-loop turn, so the
 * client really receives a stream, and a hanging request holds its socket open until the client gives
 * up or `close()` destroys every connection.
 */
export async function listenOnLoopback(
  handle: AnthropicHandler,
  basePath: string,
): Promise<ListeningEmulator> {
  return serveOnLoopback(basePath, async (request, response) => {
    const answer = await handle(request);
    if (answer.kind === 'hang') return;
    response.writeHead(answer.status, answer.headers);
    if (answer.kind === 'complete') {
      response.end(answer.body);
      return;
    }
    response.flushHeaders();
    for (const event of answer.events) {
      if (response.destroyed) return;
      response.write(event);
      await nextTurn();
    }
    response.end();
  });
}
