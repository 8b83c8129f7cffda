import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The headers the model proxy (model-proxy.ts) reads, forwards and drops. */

/** How the endpoint takes the credential: an API key as `x-api-key`, an OAuth or gateway token as a bearer. */
export interface ModelCredential {
  scheme: 'x-api-key' | 'bearer';
  value: string;
}

/** Headers never forwarded: the client's credentials, hop-by-hop headers, and compression (usage is read). */
const DROPPED = new Set([
  'authorization',
  'x-api-key',
  'proxy-authorization',
  'cookie',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'accept-encoding',
  // The body is forwarded as the proxy re-serialized it (model-request.ts), with its own length.
  'content-length',
  'transfer-encoding',
  'content-encoding',
]);

export function forwardedHeaders(
  headers: IncomingHttpHeaders,
  credential: ModelCredential,
): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!DROPPED.has(name.toLowerCase())) out[name] = value;
  }
  out['accept-encoding'] = 'identity';
  if (credential.scheme === 'x-api-key') out['x-api-key'] = credential.value;
  else out.authorization = `Bearer ${credential.value}`;
  return out;
}

export function answerHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!['connection', 'keep-alive'].includes(name.toLowerCase())) out[name] = value;
  }
  return out;
}

/** The credential a client presented, as `x-api-key` or as a bearer token. */
export function presented(headers: IncomingHttpHeaders): string {
  const key = headers['x-api-key'];
  if (typeof key === 'string' && key) return key.trim();
  return /^bearer\s+(\S+)$/i.exec(headers.authorization?.trim() ?? '')?.[1] ?? '';
}

/** Whether the client presented the session's key (compared in constant time). */
export function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
