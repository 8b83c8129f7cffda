import { createServer, type IncomingHttpHeaders, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ModelProxy, type ModelResponseUsage, startModelProxy } from '../../src/sandbox/model-proxy.js';
import { httpRequest } from '../helpers/http-request.js';
import { DELTA, END, START } from './sse-frames.js';

const REAL_KEY = 'sk-ant-api03-real-0123456789abcdef';
const PLACEHOLDER = 'sk-ant-api03-placeholder-issueloop';

/** What the scripted upstream saw of each request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let upstream: Server;
let upstreamUrl: string;
let seen: Seen[];
let answer: (res: ServerResponse, seen: Seen) => unknown;
let proxy: ModelProxy;
let usages: ModelResponseUsage[];

beforeEach(async () => {
  seen = [];
  usages = [];
  answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      void answer(res, entry);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  proxy = await startModelProxy({
    upstream: `${upstreamUrl}/gateway/`,
    credential: { scheme: 'x-api-key', value: REAL_KEY },
    onUsage: (report) => usages.push(report),
    tcp: true,
  });
});

afterEach(async () => {
  await proxy.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as it arrived, chunk by chunk. */
  chunks: string[];
}

/** A request to the proxy, over its Unix socket unless `tcp`; `onChunk` sees the body as it streams. */
function call(
  path: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    tcp?: boolean;
    onChunk?: (text: string) => void;
  } = {},
): Promise<Reply> {
  const where = options.tcp
    ? { host: '127.0.0.1', port: Number(new URL(proxy.url as string).port) }
    : { socketPath: proxy.socket };
  return new Promise((resolve, reject) => {
    const req = request(
      { ...where, path, method: options.method ?? 'POST', headers: options.headers ?? {} },
      (res) => {
        const chunks: string[] = [];
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          chunks.push(text);
          options.onChunk?.(text);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: chunks.join(''), chunks }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body ?? '');
  });
}

const CLIENT = {
  'x-api-key': PLACEHOLDER,
  'anthropic-version': '2023-06-01',
  'content-type': 'application/json',
};

describe('the model-credential proxy', () => {
  it('replaces the placeholder with the real key, and strips every credential the client sent', async () => {
    const reply = await call('/v1/messages?beta=true', {
      headers: {
        ...CLIENT,
        authorization: `Bearer ${PLACEHOLDER}`,
        cookie: 'session=x',
        'proxy-authorization': 'Basic eA==',
      },
      body: '{"model":"claude-sonnet-5-5"}',
    });
    expect(reply.status).toBe(200);
    expect(seen).toHaveLength(1);
    const [first] = seen as [Seen];
    expect(first).toMatchObject({ method: 'POST', url: '/gateway/v1/messages?beta=true' });
    expect(first.body).toBe('{"model":"claude-sonnet-5-5"}');
    expect(first.headers['x-api-key']).toBe(REAL_KEY);
    expect(first.headers.authorization).toBeUndefined();
    expect(first.headers.cookie).toBeUndefined();
    expect(first.headers['proxy-authorization']).toBeUndefined();
    expect(first.headers['anthropic-version']).toBe('2023-06-01');
    expect(first.headers.host).toBe(new URL(upstreamUrl).host);
    expect(JSON.stringify(first.headers)).not.toContain(PLACEHOLDER);
  });

  it('sends an OAuth or gateway token as a bearer, never as x-api-key', async () => {
    const bearer = await startModelProxy({
      upstream: upstreamUrl,
      credential: { scheme: 'bearer', value: 'sk-ant-oat01-real' },
    });
    try {
      const reply = await new Promise<number>((resolve, reject) => {
        request(
          { socketPath: bearer.socket, path: '/v1/messages/count_tokens', method: 'POST', headers: CLIENT },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
          .on('error', reject)
          .end('{}');
      });
      expect(reply).toBe(200);
      expect(seen[0]?.headers.authorization).toBe('Bearer sk-ant-oat01-real');
      expect(seen[0]?.headers['x-api-key']).toBeUndefined();
      expect(seen[0]?.url).toBe('/v1/messages/count_tokens');
    } finally {
      await bearer.close();
    }
  });

  it('refuses every other call with a 403 in the API shape, counts it, and never forwards it', async () => {
    const refusedHere = [
      await call('/v1/models', { method: 'GET', headers: CLIENT }),
      await call('/api/hello', { method: 'HEAD', headers: CLIENT }),
      await call('/v1/files', { headers: CLIENT }),
      await call('/v1/messages/../../v1/files', { headers: CLIENT }),
      await call('/v1/messages', { method: 'GET', headers: CLIENT }),
      await call('/v1/models', { method: 'GET', headers: CLIENT, tcp: true }),
    ];
    expect(refusedHere.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(JSON.parse(refusedHere[0]?.body ?? '')).toMatchObject({
      type: 'error',
      error: { type: 'permission_error', message: expect.stringContaining('GET /v1/models') },
    });
    expect(seen).toEqual([]);
    expect(proxy.refused()).toEqual([
      { request: 'GET /v1/models', count: 2 },
      { request: 'POST /v1/files', count: 2 },
      { request: 'GET /v1/messages', count: 1 },
      { request: 'HEAD /api/hello', count: 1 },
    ]);
  });

  it('refuses CONNECT (a tunnel to anywhere) and counts it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      request({ socketPath: proxy.socket, method: 'CONNECT', path: '127.0.0.1:6379' })
        .on('connect', (res, socket) => {
          socket.destroy();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
    expect(proxy.refused()).toEqual([{ request: 'CONNECT 127.0.0.1:6379', count: 1 }]);
    expect(seen).toEqual([]);
  });

  it('reads the usage of a whole JSON answer', async () => {
    answer = (res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'msg_1',
          model: 'claude-haiku-5-5',
          usage: {
            input_tokens: 100,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 50,
            output_tokens: 7,
          },
        }),
      );
    await call('/v1/messages', { headers: CLIENT, body: '{}' });
    await proxy.idle();
    expect(usages).toEqual([
      { model: 'claude-haiku-5-5', usage: { input: 100, cacheWrite: 0, cacheRead: 50, output: 7 } },
    ]);
  });

  it('passes a stream through as it comes (not buffered) and reads its usage from message_start and message_delta', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    answer = async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(START);
      // The rest comes only once the client has had the first event: a buffering proxy would hang here.
      await held;
      res.write(DELTA);
      res.end(END);
    };
    const reply = await call('/v1/messages', {
      headers: CLIENT,
      body: '{"stream":true}',
      onChunk: (text) => {
        if (text.includes('message_start')) release();
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toBe(START + DELTA + END);
    expect(reply.chunks.length).toBeGreaterThan(1);
    await proxy.idle();
    expect(usages).toEqual([
      { model: 'claude-sonnet-5-5', usage: { input: 12, cacheWrite: 3000, cacheRead: 9000, output: 42 } },
    ]);
  });

  it('passes the API errors through as errors, and reads no usage from them', async () => {
    answer = (res) =>
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
        .end('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}');
    const reply = await call('/v1/messages', { headers: CLIENT, body: '{}' });
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('7');
    expect(JSON.parse(reply.body)).toMatchObject({ error: { type: 'rate_limit_error' } });
    await proxy.idle();
    expect(usages).toEqual([]);
  });

  it('answers 502 in the API shape when the endpoint cannot be reached', async () => {
    const port = (upstream.address() as AddressInfo).port;
    await proxy.close();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
    proxy = await startModelProxy({
      upstream: `http://127.0.0.1:${port}`,
      credential: { scheme: 'x-api-key', value: REAL_KEY },
    });
    const reply = await call('/v1/messages', { headers: CLIENT, body: '{}' });
    expect(reply.status).toBe(502);
    expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(reply.body).not.toContain(REAL_KEY);
    upstream = createServer();
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });

  it("a stream the endpoint cuts off breaks the client's stream too, and still counts what it used", async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(START, () => res.destroy());
    };
    await expect(call('/v1/messages', { headers: CLIENT, body: '{}' })).rejects.toThrow();
    await proxy.idle();
    expect(usages).toEqual([
      { model: 'claude-sonnet-5-5', usage: { input: 12, cacheWrite: 3000, cacheRead: 9000, output: 1 } },
    ]);
  });
});

describe('the model-credential proxy, for the session that holds its key', () => {
  it("refuses a caller without the session's placeholder (another local process on its port), and counts it", async () => {
    const own = await startModelProxy({
      upstream: upstreamUrl,
      credential: { scheme: 'x-api-key', value: REAL_KEY },
      clientKey: PLACEHOLDER,
      tcp: true,
    });
    const port = Number(new URL(own.url as string).port);
    const ask = (headers: Record<string, string>) =>
      httpRequest({ host: '127.0.0.1', port, path: '/v1/messages', method: 'POST', headers }, '{}');
    try {
      const strangers = [
        await ask({ 'anthropic-version': '2023-06-01' }),
        await ask({ ...CLIENT, 'x-api-key': REAL_KEY }),
        await ask({ 'anthropic-version': '2023-06-01', authorization: `Bearer ${PLACEHOLDER}x` }),
      ];
      expect(strangers.map((r) => r.status)).toEqual([401, 401, 401]);
      expect(JSON.parse(strangers[0]?.body ?? '')).toMatchObject({ error: { type: 'authentication_error' } });
      expect(seen).toEqual([]);
      expect(own.refused()).toEqual([{ request: "POST /v1/messages (without the session's key)", count: 3 }]);
      expect((await ask(CLIENT)).status).toBe(200);
      expect(
        (await ask({ 'anthropic-version': '2023-06-01', authorization: `Bearer ${PLACEHOLDER}` })).status,
      ).toBe(200);
      expect(seen.map((r) => r.headers['x-api-key'])).toEqual([REAL_KEY, REAL_KEY]);
    } finally {
      await own.close();
    }
  });

  it('answers a call its owner does not admit (a spent budget) itself, and forwards nothing', async () => {
    let spent = false;
    const own = await startModelProxy({
      upstream: upstreamUrl,
      credential: { scheme: 'x-api-key', value: REAL_KEY },
      admit: (call) =>
        spent && call === 'POST /v1/messages'
          ? { status: 400, type: 'invalid_request_error', message: 'the budget is spent' }
          : undefined,
    });
    const post = () =>
      httpRequest({ socketPath: own.socket, path: '/v1/messages', method: 'POST', headers: CLIENT }, '{}');
    try {
      expect((await post()).status).toBe(200);
      spent = true;
      const refused = await post();
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({
        error: { type: 'invalid_request_error', message: 'issueloop model proxy: the budget is spent' },
      });
      expect(seen).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});

describe('the model proxy and calls that make the API reach out', () => {
  const messages = [{ role: 'user', content: 'hi' }];
  const body = (extra: Record<string, unknown>) =>
    JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages, ...extra });

  it('refuses (403, counted, nothing forwarded) MCP servers, server tools, reaching betas and content fetched by URL', async () => {
    const image = { type: 'image', source: { type: 'url', url: 'https://attacker.example/i.png' } };
    const cases: [string, Record<string, string>, string][] = [
      [
        '/v1/messages',
        {},
        body({ mcp_servers: [{ type: 'url', url: 'https://attacker.example/', name: 'x' }] }),
      ],
      ['/v1/messages', {}, body({ tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] })],
      ['/v1/messages', {}, body({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] })],
      ['/v1/messages', {}, body({ tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] })],
      ['/v1/messages', {}, body({ tools: [{ type: 'mcp_toolset', mcp_server_name: 'x' }] })],
      ['/v1/messages', {}, body({ tools: [{ type: 'some_future_server_tool_20300101', name: 'f' }] })],
      ['/v1/messages', { 'anthropic-beta': 'claude-code-20250219,mcp-client-2025-11-20' }, body({})],
      ['/v1/messages', {}, body({ messages: [{ role: 'user', content: [image] }] })],
      [
        '/v1/messages',
        {},
        body({
          messages: [
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [image] }] },
          ],
        }),
      ],
      ['/v1/messages/count_tokens', {}, body({ mcp_servers: [{ type: 'url', url: 'https://a.example/' }] })],
    ];
    const statuses: number[] = [];
    for (const [path, extra, sent] of cases) {
      const reply = await call(path, { headers: { ...CLIENT, ...extra }, body: sent });
      statuses.push(reply.status);
      expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    }
    expect(statuses).toEqual(cases.map(() => 403));
    expect(seen).toEqual([]);
    expect(proxy.refused().map((r) => r.request)).toEqual(
      expect.arrayContaining([
        'POST /v1/messages (mcp_servers)',
        'POST /v1/messages (the server tool web_fetch_20250910)',
        'POST /v1/messages (the beta mcp-client-2025-11-20)',
        'POST /v1/messages (a content source by URL)',
        'POST /v1/messages/count_tokens (mcp_servers)',
      ]),
    );
  });

  it("forwards Claude Code's own tools and betas, as the JSON it inspected (one value per key); a body that is not JSON is a 400", async () => {
    const tools = [
      { name: 'Bash', input_schema: { type: 'object' } },
      { type: 'custom', name: 'Edit', input_schema: { type: 'object' } },
      { type: 'bash_20250124', name: 'bash' },
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
      { type: 'tool_search_tool_regex_20251119', name: 'tool_search' },
    ];
    const beta = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27';
    // A tool call's input is the model's output: a `{type: "url"}` in it is never fetched.
    const history = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't', name: 'Bash', input: { type: 'url', url: 'x' } }],
      },
    ];
    const sent = `{"model":"claude-haiku-4-5","model":"claude-sonnet-4-5","max_tokens":16,"tools":${JSON.stringify(tools)},"messages":${JSON.stringify(history)}}`;
    const ok = await call('/v1/messages', { headers: { ...CLIENT, 'anthropic-beta': beta }, body: sent });
    expect(ok.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body).toBe(JSON.stringify(JSON.parse(sent)));
    expect(seen[0]?.body).not.toContain('claude-haiku-4-5');
    expect(seen[0]?.headers['content-length']).toBe(String(Buffer.byteLength(seen[0]?.body ?? '')));
    expect(seen[0]?.headers['anthropic-beta']).toBe(beta);
    // count_tokens is free and unpriced: it measures a prompt, and never carries a call that generates.
    const counted = await call('/v1/messages/count_tokens', {
      headers: CLIENT,
      body: JSON.stringify({ model: 'claude-sonnet-4-5', messages, tools }),
    });
    expect(counted.status).toBe(200);
    expect(seen).toHaveLength(2);
    for (const extra of [{ max_tokens: 64_000 }, { stream: true }]) {
      const generating = await call('/v1/messages/count_tokens', {
        headers: CLIENT,
        body: JSON.stringify({ model: 'claude-sonnet-4-5', messages, ...extra }),
      });
      expect(generating.status).toBe(400);
    }
    expect(seen).toHaveLength(2);
    const notJson = await call('/v1/messages', { headers: CLIENT, body: '{"model": ' });
    expect(notJson.status).toBe(400);
    expect(seen).toHaveLength(2);
  });
});
