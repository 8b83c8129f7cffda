/**
 * What a Messages API response says it used, read while the response passes through the model proxy
 * (model-proxy.ts) to `claude`: never buffering a stream, never holding more than one line of it.
 * A streamed response tells its usage in two events: `message_start` (the model, the input and cache
 * tokens, a first output count) and `message_delta` (the cumulative output tokens, and in newer API
 * versions the input figures again). A whole JSON response carries `model` and `usage` at its top.
 */

/** Tokens as the API bills them; the same fields as model/'s TokenUsage (sandbox/ imports only core/). */
export interface ModelUsage {
  input: number;
  cacheWrite: number;
  /** The part of `cacheWrite` written for an hour (billed 2× input, not 1.25×), when the API says. */
  cacheWrite1h?: number;
  cacheRead: number;
  output: number;
}

/** One response's usage, for the engine to price. */
export interface ModelResponseUsage {
  model: string;
  usage: ModelUsage;
}

type Json = Record<string, unknown>;

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The API's usage object over what was known: a field the object leaves out keeps its value. */
function merged(known: ModelUsage, raw: unknown): ModelUsage {
  if (!raw || typeof raw !== 'object') return known;
  const u = raw as Json;
  const split = u.cache_creation && typeof u.cache_creation === 'object' ? (u.cache_creation as Json) : {};
  const hour = count(split.ephemeral_1h_input_tokens) ?? known.cacheWrite1h;
  return {
    input: count(u.input_tokens) ?? known.input,
    cacheWrite: count(u.cache_creation_input_tokens) ?? known.cacheWrite,
    cacheRead: count(u.cache_read_input_tokens) ?? known.cacheRead,
    output: count(u.output_tokens) ?? known.output,
    ...(hour ? { cacheWrite1h: hour } : {}),
  };
}

const NONE: ModelUsage = Object.freeze({ input: 0, cacheWrite: 0, cacheRead: 0, output: 0 });

/** A JSON body is read whole only up to this size; a Messages answer is far smaller. */
const MAX_JSON_BYTES = 32 * 1024 * 1024;
/** An SSE line longer than this is a content delta, never a usage event: it is skipped. */
const MAX_SSE_LINE = 1024 * 1024;

export interface UsageMeter {
  /** A chunk of the response body, as it passed through. */
  chunk(data: Buffer): void;
  /** The usage seen, when the response had any: at its end, or where it broke off. */
  end(): ModelResponseUsage | undefined;
}

/** Reads `text/event-stream` line by line; only the two events that carry usage are parsed. */
function sseMeter(): UsageMeter {
  const decoder = new TextDecoder();
  let pending = '';
  let skipping = false;
  let model: string | undefined;
  let usage = NONE;
  const line = (text: string) => {
    if (!text.startsWith('data:') || !/"message_(start|delta)"/.test(text)) return;
    let event: Json;
    try {
      event = JSON.parse(text.slice(5)) as Json;
    } catch {
      return;
    }
    if (event.type === 'message_start' && event.message && typeof event.message === 'object') {
      const message = event.message as Json;
      if (typeof message.model === 'string') model = message.model;
      usage = merged(NONE, message.usage);
    } else if (event.type === 'message_delta') {
      usage = merged(usage, event.usage);
    }
  };
  return {
    chunk(data) {
      const lines = (pending + decoder.decode(data, { stream: true })).split('\n');
      pending = lines.pop() ?? '';
      for (const text of lines) {
        if (!skipping) line(text.trimEnd());
        skipping = false;
      }
      if (pending.length > MAX_SSE_LINE) {
        pending = '';
        skipping = true;
      }
    },
    end() {
      if (pending && !skipping) line(pending.trimEnd());
      pending = '';
      return model === undefined ? undefined : { model, usage };
    },
  };
}

function jsonMeter(): UsageMeter {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    chunk(data) {
      size += data.length;
      if (size <= MAX_JSON_BYTES) chunks.push(data);
    },
    end() {
      if (size > MAX_JSON_BYTES) return undefined;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        if (typeof body.model !== 'string' || !body.usage || typeof body.usage !== 'object') return undefined;
        return { model: body.model, usage: merged(NONE, body.usage) };
      } catch {
        return undefined;
      }
    },
  };
}

/** The meter for a response of this content type: SSE, or a JSON body. */
export function usageMeter(contentType: string | undefined): UsageMeter {
  return /^text\/event-stream/i.test(contentType ?? '') ? sseMeter() : jsonMeter();
}
