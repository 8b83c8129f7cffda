import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyError } from '../../../src/core/classify/classify-error.js';
import { RetryExhaustedError } from '../../../src/core/retry.js';
import {
  closedPort,
  jsonReply,
  type ScriptedServer,
  startServer,
  startSilentServer,
} from '../../helpers/scripted-server.js';

/**
 * Real `@anthropic-ai/sdk` errors: the SDK talks to a loopback server that answers exactly as the
 * Messages API does (status, `{"type":"error","error":{...}}` body, headers), with its own retries off.
 */

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function body(type: string, message: string, details?: Record<string, unknown>) {
  return {
    type: 'error',
    error: details ? { type, message, details } : { type, message },
    request_id: 'req_011CZsHtUjPVsseLAsotwYsF',
  };
}

async function sdkError(
  baseURL: string,
  options: { timeout?: number; signal?: AbortSignal } = {},
): Promise<unknown> {
  const client = new Anthropic({
    apiKey: 'sk-ant-api03-test-key-not-real',
    baseURL,
    maxRetries: 0,
    ...(options.timeout ? { timeout: options.timeout } : {}),
  });
  try {
    await client.messages.create(
      { model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      options.signal ? { signal: options.signal } : undefined,
    );
  } catch (err) {
    return err;
  }
  throw new Error('expected the SDK call to fail');
}

async function answered(
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  server = await startServer(
    jsonReply(status, payload, { 'request-id': 'req_011CZsHtUjPVsseLAsotwYsF', ...headers }),
  );
  return sdkError(server.url);
}

describe('classifyError on Anthropic API errors (real SDK, loopback server)', () => {
  const cases: Array<{
    name: string;
    status: number;
    payload: unknown;
    headers?: Record<string, string>;
    errorClass: string;
    action: string;
    retryAfterMs: number | undefined;
  }> = [
    {
      name: '429 rate_limit_error with retry-after seconds',
      status: 429,
      payload: body('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
      headers: { 'retry-after': '12' },
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: 12_000,
    },
    {
      name: '429 rate_limit_error with retry-after-ms',
      status: 429,
      payload: body('rate_limit_error', 'Rate limited'),
      headers: { 'retry-after-ms': '1500', 'retry-after': '2' },
      errorClass: 'rate_limit',
      action: 'retry_backoff',
      retryAfterMs: 1_500,
    },
    {
      name: '429 spend limit (details.error_code enforced_spend_limit_reached) is billing, not retried',
      status: 429,
      payload: body(
        'rate_limit_error',
        "You have reached your API usage limits: your organization has crossed its monthly API usage threshold, set based on your organization's API tier. You will regain access on 2026-12-01 at 00:00 UTC.",
        { error_code: 'enforced_spend_limit_reached' },
      ),
      errorClass: 'billing',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '429 monthly spend limit by message only is billing',
      status: 429,
      payload: body(
        'rate_limit_error',
        "This request would exceed your account's monthly spend limit. Please try again later.",
      ),
      errorClass: 'billing',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '400 usage-limit reached is billing',
      status: 400,
      payload: body(
        'invalid_request_error',
        'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.',
      ),
      errorClass: 'billing',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '529 overloaded_error',
      status: 529,
      payload: body('overloaded_error', 'Overloaded'),
      errorClass: 'overloaded',
      action: 'failover',
      retryAfterMs: undefined,
    },
    {
      name: '401 authentication_error',
      status: 401,
      payload: body('authentication_error', 'invalid x-api-key'),
      errorClass: 'auth',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '400 prompt is too long',
      status: 400,
      payload: body('invalid_request_error', 'prompt is too long: 200082 tokens > 200000 maximum'),
      errorClass: 'context_overflow',
      action: 'compact',
      retryAfterMs: undefined,
    },
    {
      name: '400 invalid_request_error',
      status: 400,
      payload: body('invalid_request_error', 'max_tokens: Field required'),
      errorClass: 'invalid_request',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '400 content filtering',
      status: 400,
      payload: body('invalid_request_error', 'Output blocked by content filtering policy'),
      errorClass: 'content_filter',
      action: 'manual_review',
      retryAfterMs: undefined,
    },
    {
      name: '402 billing_error',
      status: 402,
      payload: body('billing_error', 'Your credit balance is too low to access the Anthropic API.'),
      errorClass: 'billing',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '403 permission_error',
      status: 403,
      payload: body(
        'permission_error',
        'Your API key does not have permission to use the specified resource.',
      ),
      errorClass: 'permission',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '404 not_found_error for a model',
      status: 404,
      payload: body('not_found_error', 'model: claude-does-not-exist'),
      errorClass: 'not_found',
      action: 'fail_fast',
      retryAfterMs: undefined,
    },
    {
      name: '413 request_too_large',
      status: 413,
      payload: body('request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
      errorClass: 'context_overflow',
      action: 'compact',
      retryAfterMs: undefined,
    },
    {
      name: '500 api_error',
      status: 500,
      payload: body('api_error', 'Internal server error'),
      errorClass: 'server_error',
      action: 'retry_backoff',
      retryAfterMs: undefined,
    },
    {
      name: '504 timeout_error',
      status: 504,
      payload: body('timeout_error', 'Request timeout'),
      errorClass: 'timeout',
      action: 'retry_once',
      retryAfterMs: undefined,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const err = await answered(c.status, c.payload, c.headers);
      expect(err).toBeInstanceOf(Anthropic.APIError);
      const result = classifyError(err, { now: NOW });
      expect(result.errorClass).toBe(c.errorClass);
      expect(result.action).toBe(c.action);
      expect(result.retryAfterMs).toBe(c.retryAfterMs);
      expect(result.status).toBe(c.status);
      expect(result.source).toBe('anthropic');
    });
  }

  it('names the variable to fix on 401 and keeps the API message in one line', async () => {
    const result = classifyError(await answered(401, body('authentication_error', 'invalid x-api-key')));
    expect(result.hint).toContain('ANTHROPIC_API_KEY');
    expect(result.message).toBe('401 authentication_error: invalid x-api-key');
  });

  it('rate_limit, overloaded and timeout allow failover; auth and context overflow do not', async () => {
    const rate = classifyError(await answered(429, body('rate_limit_error', 'Rate limited')));
    await server?.close();
    const overloaded = classifyError(await answered(529, body('overloaded_error', 'Overloaded')));
    await server?.close();
    const context = classifyError(
      await answered(400, body('invalid_request_error', 'prompt is too long: 1 > 0')),
    );
    expect([rate.failover, overloaded.failover, context.failover]).toEqual([true, true, false]);
  });

  it('connection refused → network (APIConnectionError wrapping ECONNREFUSED)', async () => {
    const err = await sdkError(`http://127.0.0.1:${await closedPort()}`);
    expect(err).toBeInstanceOf(Anthropic.APIConnectionError);
    const result = classifyError(err);
    expect([result.errorClass, result.action, result.retryAfterMs]).toEqual([
      'network',
      'retry_once',
      undefined,
    ]);
  });

  it('the SDK request timeout → timeout', async () => {
    server = await startSilentServer();
    const err = await sdkError(server.url, { timeout: 100 });
    expect(err).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    const result = classifyError(err);
    expect([result.errorClass, result.action, result.retryAfterMs]).toEqual([
      'timeout',
      'retry_once',
      undefined,
    ]);
  });

  it('an aborted request → aborted, never retried', async () => {
    server = await startSilentServer();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const err = await sdkError(server.url, { signal: controller.signal });
    const result = classifyError(err);
    expect([result.errorClass, result.action, result.retryable]).toEqual(['aborted', 'fail_fast', false]);
  });

  it('a retry wrapper around an API error classifies as the error inside', async () => {
    const inner = await answered(529, body('overloaded_error', 'Overloaded'));
    const wrapped = new RetryExhaustedError(
      'messages.create',
      [],
      classifyError(inner),
      'budget spent',
      inner,
    );
    expect(classifyError(wrapped).errorClass).toBe('overloaded');
  });
});
