import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Anthropic, { type APIError, type RateLimitError } from '@anthropic-ai/sdk';
import { describe, expect, it, vi } from 'vitest';
import { createAnthropicEmulator, reply } from '../../../src/emulators/anthropic/index.js';
import { clientFor, clocked, MODEL, rejectionOf } from './fixtures.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const ASK: Anthropic.MessageCreateParamsNonStreaming = {
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'hello' }],
};

describe('authentication and headers', () => {
  it('refuses a wrong key with 401 authentication_error and a request id', async () => {
    const emulator = createAnthropicEmulator();
    const error = await rejectionOf(clientFor(emulator, { apiKey: 'sk-ant-wrong' }).messages.create(ASK));
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error).toMatchObject({
      status: 401,
      type: 'authentication_error',
      apiMessage: 'invalid x-api-key',
    });
    expect((error as APIError).requestID).toMatch(/^req_/);
    expect((error as APIError).error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
      request_id: (error as APIError).requestID,
    });
  });

  it('accepts the key as x-api-key and requires anthropic-version', async () => {
    const emulator = createAnthropicEmulator();
    const post = (headers: Record<string, string>) =>
      emulator.fetch(`${emulator.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(ASK),
      });
    const ok = await post({ 'x-api-key': emulator.apiKey, 'anthropic-version': '2023-06-01' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('request-id')).toMatch(/^req_/);
    const missingKey = await post({ 'anthropic-version': '2023-06-01' });
    expect(missingKey.status).toBe(401);
    const noVersion = await post({ 'x-api-key': emulator.apiKey });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
    expect(emulator.requests.at(-1)?.headers['x-api-key']).toBe('[redacted]');
  });

  it('rejects another origin like a refused connection', async () => {
    const emulator = createAnthropicEmulator();
    await expect(emulator.fetch('https://api.anthropic.com/v1/messages')).rejects.toThrow(TypeError);
  });
});

describe('scripted and validation errors', () => {
  it('delivers a 429 with retry-after as RateLimitError', async () => {
    const { client } = clocked({
      script: () =>
        reply.error(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', {
          'retry-after': '17',
        }),
    });
    const error = await rejectionOf(client.messages.create(ASK));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const api = error as RateLimitError;
    expect(api.headers.get('retry-after')).toBe('17');
    expect(api.type).toBe('rate_limit_error');
    expect(api.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('delivers a 529 as OverloadedError', async () => {
    const { client, emulator } = clocked({
      script: () => reply.error(529, 'overloaded_error', 'Overloaded'),
    });
    const error = await rejectionOf(client.messages.create(ASK));
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(error).toMatchObject({ status: 529, type: 'overloaded_error', apiMessage: 'Overloaded' });
    expect(emulator.cacheStats().requests).toBe(0);
  });

  it('404s an unknown model before the script runs', async () => {
    const script = vi.fn(() => reply.text('never'));
    const { client } = clocked({ script });
    const error = await rejectionOf(client.messages.create({ ...ASK, model: 'claude-nope-1' }));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error).toMatchObject({ type: 'not_found_error', apiMessage: 'model: claude-nope-1' });
    expect(script).not.toHaveBeenCalled();
  });

  it('refuses a prompt over the model’s input limit with the API’s message', async () => {
    const { client } = clocked({ models: { tiny: { maxInputTokens: 100, maxTokens: 4096 } } });
    const big = { ...ASK, model: 'tiny', messages: [{ role: 'user' as const, content: 'y'.repeat(2000) }] };
    const counted = await client.messages.countTokens({ model: 'tiny', messages: big.messages });
    expect(counted.input_tokens).toBeGreaterThan(100);
    const error = await rejectionOf(client.messages.create(big));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as APIError).apiMessage).toBe(
      `prompt is too long: ${counted.input_tokens} tokens > 100 maximum`,
    );
  });

  it('refuses max_tokens above the model’s limit and a body without max_tokens', async () => {
    const { client, emulator } = clocked();
    const tooMany = await rejectionOf(client.messages.create({ ...ASK, max_tokens: 64_001, stream: true }));
    expect(tooMany).toMatchObject({ status: 400, type: 'invalid_request_error' });
    expect((tooMany as APIError).apiMessage).toMatch(/^max_tokens: 64001 > 64000/);
    const raw = await emulator.fetch(`${emulator.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': emulator.apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: MODEL, messages: ASK.messages }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ error: { message: 'max_tokens: Field required' } });
  });

  it('refuses more than four cache breakpoints', async () => {
    const { client } = clocked();
    const block = { type: 'text' as const, text: 'part', cache_control: { type: 'ephemeral' as const } };
    const error = await rejectionOf(
      client.messages.create({
        ...ASK,
        messages: [{ role: 'user', content: [block, block, block, block, block] }],
      }),
    );
    expect(error).toMatchObject({
      status: 400,
      apiMessage: 'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    });
  });
});

describe('hang', () => {
  it('never answers in-process until the caller aborts', async () => {
    const { client, emulator } = clocked({ script: () => ({ hang: true }) });
    const controller = new AbortController();
    const pending = rejectionOf(client.messages.create(ASK, { signal: controller.signal }));
    await vi.waitFor(() => expect(emulator.requests).toHaveLength(1));
    // A collection while hanging once cut the link between the caller's signal and the emulator's.
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 0));
    controller.abort();
    expect(await pending).toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(emulator.requests[0]?.status).toBe(0);
  });

  it('lets the SDK’s own timeout fire', async () => {
    const { client } = clocked({ script: () => ({ hang: true }) });
    const error = await rejectionOf(client.messages.create(ASK, { timeout: 20 }));
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('holds a loopback connection open until close() cuts it', async () => {
    const emulator = createAnthropicEmulator({ script: () => ({ hang: true }) });
    const server = await emulator.listen();
    const client = new Anthropic({ apiKey: emulator.apiKey, baseURL: server.url, maxRetries: 0 });
    const pending = rejectionOf(client.messages.stream(ASK).finalMessage());
    await vi.waitFor(() => expect(emulator.requests).toHaveLength(1));
    await server.close();
    expect(await pending).toBeInstanceOf(Anthropic.APIConnectionError);
  });
});
