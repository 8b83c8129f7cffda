import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICES, costOf, priceOf } from '../../src/model/prices.js';
import { type BodyPool, inspectBody, readBody } from '../../src/sandbox/model-request.js';
import {
  cutOffUsage,
  IMAGE_TOKENS,
  inputTokenBound,
  jsonValues,
  MAX_CONTEXT_TOKENS,
  MAX_JSON_VALUES,
  MAX_OUTPUT_TOKENS,
} from '../../src/sandbox/model-tokens.js';

describe('model-tokens: bounds on a Messages body', () => {
  it('counts JSON values outside strings, at least all but one', () => {
    expect(jsonValues(Buffer.from('{"a":[1,2,{}],"b":"x,y,[z{"}'))).toBe(6);
    expect(jsonValues(Buffer.from('["\\",[",1]'))).toBe(2);
    const many = Buffer.from(`{"x":[${'{},'.repeat(MAX_JSON_VALUES)}{}]}`);
    const inspected = inspectBody('POST /v1/messages', many, {});
    expect('refusal' in inspected && inspected.refusal.status).toBe(400);
  });

  it('bounds input tokens: bytes, plus IMAGE_TOKENS per image at any depth, the largest window for a PDF', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } };
    const toolResult = { type: 'tool_result', tool_use_id: 't', content: [image] };
    const body = { messages: [{ role: 'user', content: [image, toolResult] }] };
    expect(inputTokenBound(body, 100)).toBe(100 + 2 * IMAGE_TOKENS);
    const text = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hi' } };
    expect(inputTokenBound({ messages: [{ role: 'user', content: [text] }] }, 100)).toBe(100);
    const pdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'AA' } };
    expect(inputTokenBound({ messages: [{ role: 'user', content: [pdf] }] }, 100)).toBe(MAX_CONTEXT_TOKENS);
    const inspected = inspectBody('POST /v1/messages', Buffer.from(JSON.stringify(body)), {});
    expect('facts' in inspected && inspected.facts.inputTokens).toBeGreaterThan(2 * IMAGE_TOKENS);
  });

  it('charges a call cut off by its client all of max_tokens, and the bound of its input before message_start', () => {
    const seen = { model: 'claude-opus-4-5', usage: { input: 20, cacheWrite: 0, cacheRead: 5, output: 1 } };
    expect(cutOffUsage(seen, { maxTokens: 500, bytes: 10 }).usage).toEqual({ ...seen.usage, output: 500 });
    expect(cutOffUsage(undefined, { model: 'm', bytes: 10, inputTokens: 30 })).toEqual({
      model: 'm',
      usage: { input: 0, cacheWrite: 30, cacheWrite1h: 30, cacheRead: 0, output: MAX_OUTPUT_TOKENS },
    });
  });
});

describe('prices: 1-hour cache writes and the long-context premium', () => {
  it('prices 1-hour writes at 2× input, 5-minute ones at 1.25×', () => {
    const usage = { input: 0, cacheWrite: 3_000, cacheWrite1h: 1_000, cacheRead: 0, output: 0 };
    expect(costOf(usage, BUILT_IN_PRICES.haiku)).toBeCloseTo((2_000 * 1.25 + 1_000 * 2) / 1e6, 12);
    expect(costOf(usage, { input: 1, output: 5, cache_write_1h: 3 })).toBeCloseTo((2_500 + 3_000) / 1e6, 12);
  });

  it('prices Sonnet and Opus over 200K input tokens at 2× input and 1.5× output, never Haiku', () => {
    const long = { input: 150_000, cacheWrite: 0, cacheRead: 60_000, output: 1_000 };
    expect(costOf(long, priceOf('claude-sonnet-4-5'))).toBeCloseTo(
      ((150_000 * 3 + 60_000 * 0.3) * 2 + 1_000 * 15 * 1.5) / 1e6,
      12,
    );
    expect(
      costOf(long, priceOf('claude-sonnet-4-5', { 'claude-sonnet-4-5': { input: 1, output: 1 } })),
    ).toBeCloseTo(((150_000 + 6_000) * 2 + 1_500) / 1e6, 12);
    expect(costOf(long, priceOf('claude-haiku-4-5'))).toBeCloseTo((150_000 + 6_000 + 5_000) / 1e6, 12);
    const short = { ...long, cacheRead: 50_000 };
    expect(costOf(short, priceOf('claude-sonnet-4-5'))).toBeCloseTo(
      (150_000 * 3 + 15_000 + 15_000) / 1e6,
      12,
    );
  });
});

describe('readBody: the bytes a proxy holds at once', () => {
  it('refuses a body the pool has no room for (429), and one over the cap (413)', async () => {
    const { PassThrough } = await import('node:stream');
    const send = (data: string) => {
      const req = new PassThrough();
      req.end(data);
      return req as unknown as Parameters<typeof readBody>[0];
    };
    const pool: BodyPool = { held: 90, max: 100 };
    const busy = await readBody(send('x'.repeat(20)), pool);
    expect('refusal' in busy && busy.refusal.status).toBe(429);
    expect(pool.held).toBe(90);
    const fits = await readBody(send('x'.repeat(10)), pool);
    expect('size' in fits && fits.size).toBe(10);
    expect(pool.held).toBe(100);
    const large = await readBody(send('x'.repeat(20)), { held: 0, max: 1000 }, 10);
    expect('refusal' in large && large.refusal.status).toBe(413);
  });
});
