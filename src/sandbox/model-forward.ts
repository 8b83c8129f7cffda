import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { answerHeaders, forwardedHeaders, type ModelCredential } from './model-headers.js';
import { type ModelResponseUsage, usageMeter } from './model-usage.js';

/** How the model proxy (model-proxy.ts) answers a call itself, and forwards one it allows. */

/** An error in the API's own shape, so the CLI reports it as it would the API's. */
export function apiError(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({
    type: 'error',
    error: { type, message: `issueloop model proxy: ${message}` },
  });
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

/** `METHOD /path` of a request, its query left out; undefined when the target is not a path. */
export function callOf(req: IncomingMessage): { call: string; path: string; search: string } | undefined {
  const raw = req.url ?? '';
  if (!raw.startsWith('/') || raw.startsWith('//')) return undefined;
  const url = new URL(raw, 'http://proxy.invalid');
  return { call: `${req.method ?? 'GET'} ${url.pathname}`, path: url.pathname, search: url.search };
}

export interface Via {
  upstream: URL;
  /** The base URL's path, without a trailing slash: '' or e.g. '/gateway'. */
  basePath: string;
  credential: ModelCredential;
}

/**
 * One allowed call, forwarded with the real credential and answered as the endpoint answers: the
 * request's body as the proxy inspected it (model-request.ts), the answer piped back as it comes (a
 * stream is never buffered), its usage read on the way. `finish` is told once, with the
 * usage when the answer was a Messages response that had any, and whether its client hung up on a
 * Messages call before its answer ended (its usage then not all known: model-tokens.ts cutOffUsage).
 */
export function forward(
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
  target: { path: string; search: string },
  via: Via,
  finish: (report: ModelResponseUsage | undefined, cutOff: boolean) => void,
): void {
  // The client went away before the answer ended: a Messages call's usage is then not all known.
  let clientLeft = false;
  let answered: number | undefined;
  const cut = () => clientLeft && target.path === '/v1/messages' && (answered ?? 200) === 200;
  const send = via.upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(
    {
      protocol: via.upstream.protocol,
      hostname: via.upstream.hostname,
      port: via.upstream.port || undefined,
      method: req.method,
      path: `${via.basePath}${target.path}${target.search}`,
      headers: {
        ...forwardedHeaders(req.headers, via.credential),
        host: via.upstream.host,
        'content-length': String(body.length),
      },
    },
    (answer) => {
      answered = answer.statusCode;
      res.writeHead(answer.statusCode ?? 502, answerHeaders(answer.headers));
      res.flushHeaders();
      const metered = answer.statusCode === 200 && target.path === '/v1/messages';
      const meter = metered ? usageMeter(answer.headers['content-type']) : undefined;
      answer.on('data', (data: Buffer) => meter?.chunk(data));
      // A response cut off (by the API, or by the client going away) still used what it used.
      answer.on('close', () => {
        if (!answer.complete) res.destroy();
        finish(meter?.end(), !answer.complete && cut());
      });
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) apiError(res, 502, 'api_error', `the model API is unreachable (${err.message})`);
    else res.destroy();
    finish(undefined, cut());
  });
  res.on('close', () => {
    if (res.writableFinished) return;
    clientLeft = true;
    upstream.destroy();
  });
  upstream.end(body);
}
