import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openModelAccess } from '../../../src/engines/claude-code/model-access.js';
import { httpRequest } from '../../helpers/http-request.js';

/**
 * Red team, round 2, against `session.max_usd` at the model proxy (model-budget.ts). The reservation
 * assumes "a token is never less than a byte of the JSON that carries it", and the spend prices every
 * response at the model line's list price with 5-minute cache writes. Neither holds for what the
 * agent (which drives `claude` and can call the proxy itself with its placeholder) may send.
 */

/** A valid 1-bit greyscale PNG of `side`×`side` pixels, all black: a few hundred bytes. */
function blankPng(side: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.writeUInt8(1, 8); // bit depth 1
  ihdr.writeUInt8(0, 9); // greyscale
  const rows = Buffer.alloc(side * (1 + Math.ceil(side / 8))); // filter byte 0 + zero bits per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Anthropic's documented image cost: tokens = width × height / 750, an image scaled down to about
 * 1,600 tokens at most (Vision guide, "Calculate image costs"). The rest of the body is counted as
 * one token per 4 bytes, a generous reading for the attacker's side of the ledger.
 */
function imageTokens(png: Buffer): number {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  return Math.min(1600, Math.ceil((width * height) / 750));
}

type Answer = (body: Record<string, unknown>, headers: IncomingHttpHeaders) => Record<string, unknown>;

async function withUpstream<T>(answer: Answer, run: (url: string, seen: () => number) => Promise<T>) {
  let calls = 0;
  const upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      // Long enough for every call the gate lets through at once to be in flight together.
      setTimeout(() => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(answer(body, req.headers)));
      }, 150);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  try {
    return await run(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, () => calls);
  } finally {
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  }
}

async function post(
  socket: string,
  key: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const answer = await httpRequest(
    {
      socketPath: socket,
      path: '/v1/messages',
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    },
    body,
  );
  return answer.status;
}

const ENV = { ANTHROPIC_API_KEY: 'sk-ant-api03-real-0123456789' };

/** The session's model access (its proxy, holding ENV's key) in front of a scripted upstream. */
async function withAccess(
  answer: Parameters<typeof withUpstream>[0],
  use: (access: NonNullable<Awaited<ReturnType<typeof openModelAccess>>>) => Promise<void>,
  budgetUsd?: number,
): Promise<void> {
  await withUpstream(answer, async (url) => {
    const access = await openModelAccess({
      env: { ...ENV, ANTHROPIC_BASE_URL: url },
      prices: {},
      tcp: false,
      ...(budgetUsd === undefined ? {} : { budgetUsd }),
    });
    if (!access) throw new Error('no model access');
    try {
      await use(access);
    } finally {
      await access.close();
    }
  });
}

describe('red2: session.max_usd at the model proxy', () => {
  it('red2-images-outweigh-bytes: calls of tiny images reserve a fraction of their cost, and concurrent ones overrun the budget many calls over', async () => {
    const png = blankPng(1092); // ~1,590 tokens each by the documented formula
    const images = Array.from({ length: 100 }, () => ({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') },
    }));
    const body = JSON.stringify({
      model: 'claude-opus-4-5',
      max_tokens: 1,
      messages: [{ role: 'user', content: [...images, { type: 'text', text: 'ok' }] }],
    });
    const perCallTokens = 100 * imageTokens(png);
    // Opus: $5 per million input tokens, $25 output.
    const perCallUsd = (perCallTokens * 5 + 25) / 1e6;
    expect(Buffer.byteLength(body)).toBeLessThan(perCallTokens / 3); // the premise: tokens ≫ bytes
    const budgetUsd = 1;
    await withAccess(
      (sent) => {
        const content = (
          sent.messages as Array<{ content: Array<{ type: string; source?: { data: string } }> }>
        )[0]?.content;
        const tokens = (content ?? [])
          .filter((block) => block.type === 'image')
          .reduce((sum, block) => sum + imageTokens(Buffer.from(block.source?.data ?? '', 'base64')), 0);
        return { model: 'claude-opus-4-5', usage: { input_tokens: tokens, output_tokens: 1 } };
      },
      async (access) => {
        await Promise.all(Array.from({ length: 12 }, () => post(access.socket, access.placeholder, body)));
        // The gate's promise: the overrun is at most one call's cost.
        expect(access.spent().costUsd).toBeLessThanOrEqual(budgetUsd + perCallUsd);
      },
      budgetUsd,
    );
  });

  it('red2-1h-cache-priced-as-5m: a cache write with ttl 1h (billed at 2× input) is priced at 1.25×', async () => {
    // Prompt caching: 1-hour cache writes cost 2× the base input price; the usage says which TTL
    // was written (`cache_creation.ephemeral_1h_input_tokens`).
    const written = 1_000_000;
    await withAccess(
      () => ({
        model: 'claude-haiku-4-5',
        usage: {
          input_tokens: 0,
          cache_creation_input_tokens: written,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: written },
          cache_read_input_tokens: 0,
          output_tokens: 0,
        },
      }),
      async (access) => {
        const body = JSON.stringify({
          model: 'claude-haiku-4-5',
          max_tokens: 1,
          system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }],
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(await post(access.socket, access.placeholder, body)).toBe(200);
        await access.idle();
        // Haiku input is $1 per million: a million tokens written for an hour bill $2.
        expect(access.spent().costUsd).toBeCloseTo(2, 6);
      },
    );
  });
  it('red2-long-context-premium: a Sonnet call over 200K input tokens with the 1M-context beta is priced at the standard rate', async () => {
    // Pricing, long context: with `context-1m-2025-08-07`, a Sonnet 4/4.5 request over 200K input
    // tokens is billed $6 in / $22.50 out per million, not $3 / $15. The beta is not refused.
    await withAccess(
      () => ({ model: 'claude-sonnet-4-5', usage: { input_tokens: 500_000, output_tokens: 10_000 } }),
      async (access) => {
        const body = JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 10_000,
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(
          await post(access.socket, access.placeholder, body, {
            'anthropic-beta': 'context-1m-2025-08-07',
          }),
        ).toBe(200);
        await access.idle();
        expect(access.spent().costUsd).toBeCloseTo((500_000 * 6 + 10_000 * 22.5) / 1e6, 6);
      },
    );
  });
});
