import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/core/random.js';
import {
  type AnthropicEmulator,
  createAnthropicEmulator,
  type ListeningEmulator,
  reply,
  type ScriptedReply,
  scriptQueue,
} from '../../src/emulators/anthropic/index.js';
import {
  createAnthropicModel,
  NON_STREAMING_MAX_TOKENS,
  needsStreaming,
} from '../../src/model/anthropic-model.js';
import { createFailoverChain } from '../../src/model/failover.js';
import { costOf, priceOf } from '../../src/model/prices.js';
import { createReliableCall } from '../../src/model/reliable-call.js';
import {
  isModelError,
  type MessageParam,
  type ModelRequest,
  type TokenUsage,
} from '../../src/model/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const MODEL = 'claude-sonnet-5-5';
const NOW = Date.UTC(2026, 10, 21, 12);
const SYSTEM = `You are a coding agent. ${'Keep to the repository conventions. '.repeat(60)}`;
const TOOLS: ModelRequest['tools'] = [
  { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
  { type: 'bash_20250124', name: 'bash' },
];

const open: ListeningEmulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

function setup(
  replies: ScriptedReply[],
  options: { prices?: Record<string, { input: number; output: number }> } = {},
) {
  const emulator = createAnthropicEmulator({
    script: scriptQueue(replies),
    now: () => NOW,
    minCacheableTokens: 256,
  });
  const model = createAnthropicModel({
    apiKey: emulator.apiKey,
    baseURL: emulator.baseUrl,
    fetch: emulator.fetch,
    now: () => NOW,
    ...(options.prices ? { prices: options.prices } : {}),
  });
  return { emulator, model };
}

function ask(messages: ModelRequest['messages'], maxTokens = 1_000): ModelRequest {
  return { model: MODEL, system: [SYSTEM, 'identity: Ada'], messages, tools: TOOLS, maxTokens };
}

const messagesCalls = (emulator: AnthropicEmulator) =>
  emulator.requests.filter((r) => r.path === '/v1/messages');

async function failureOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (err) {
    if (isModelError(err)) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

describe('anthropic adapter: requests and responses', () => {
  it('turns the answer into conversation blocks, with usage and cost from the price table', async () => {
    const { emulator, model } = setup([
      reply.toolUse([{ name: 'bash', input: { command: 'ls' } }], 'Looking.'),
    ]);
    const response = await model.callModel(ask([{ role: 'user', content: 'Issue #1: x' }]));
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'bash', input: { command: 'ls' } },
    ]);
    const sent = messagesCalls(emulator)[0];
    expect(sent?.stream).toBe(false);
    const { input, cacheWrite, cacheRead, output } = response.usage;
    expect(input + cacheWrite + cacheRead).toBeGreaterThan(0);
    expect(response.costUsd).toBeCloseTo(costOf(response.usage, priceOf(MODEL)), 12);
    expect(response.costUsd).toBeCloseTo(
      (input * 3 + cacheWrite * 3.75 + cacheRead * 0.3 + output * 15) / 1e6,
      12,
    );
  });

  it('prices from the config override the built-in table', async () => {
    const { model } = setup([reply.text('hi')], { prices: { [MODEL]: { input: 100, output: 1000 } } });
    const response = await model.callModel(ask([{ role: 'user', content: 'x' }]));
    const u = response.usage;
    expect(response.costUsd).toBeCloseTo(
      (u.input * 100 + u.cacheWrite * 125 + u.cacheRead * 10 + u.output * 1000) / 1e6,
      12,
    );
  });

  it('places four cache breakpoints: last tool, last system block, the newest message and the user message before it', async () => {
    const { emulator, model } = setup([reply.text('ok')]);
    const messages: ModelRequest['messages'] = [
      { role: 'user', content: 'Issue #1: x' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'out' }] },
    ];
    const before = JSON.stringify(messages);
    await model.callModel(ask(messages));
    expect(JSON.stringify(messages)).toBe(before);
    const body = messagesCalls(emulator)[0]?.body as Record<string, unknown>;
    const text = JSON.stringify(body);
    expect(text.match(/"cache_control"/g)).toHaveLength(4);
    const tools = body.tools as Array<Record<string, unknown>>;
    expect(tools.map((t) => 'cache_control' in t)).toEqual([false, true]);
    const system = body.system as Array<Record<string, unknown>>;
    expect(system.map((b) => 'cache_control' in b)).toEqual([false, true]);
    const sent = body.messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(sent.map((m) => m.content.some((b) => 'cache_control' in b))).toEqual([true, false, true]);
  });

  it('streams when max_tokens is beyond what the SDK allows without streaming, with the same result', async () => {
    expect(needsStreaming(NON_STREAMING_MAX_TOKENS)).toBe(false);
    expect(needsStreaming(NON_STREAMING_MAX_TOKENS + 1)).toBe(true);
    const { emulator, model } = setup([
      reply.toolUse([{ name: 'bash', input: { command: 'npm test', nested: { a: [1, 2] } } }]),
    ]);
    const response = await model.callModel(ask([{ role: 'user', content: 'x' }], 64_000));
    expect(messagesCalls(emulator)[0]?.stream).toBe(true);
    expect(response.content).toEqual([
      {
        type: 'tool_use',
        id: expect.any(String),
        name: 'bash',
        input: { command: 'npm test', nested: { a: [1, 2] } },
      },
    ]);
    expect(response.usage.output).toBeGreaterThan(0);
  });

  it('a long session is served mostly from the prompt cache', async () => {
    const turns = 8;
    const { model } = setup(
      Array.from({ length: turns }, (_, i) => reply.toolUse([{ name: 'bash', input: { i } }])),
    );
    const messages: MessageParam[] = [{ role: 'user', content: 'Issue #1: x' }];
    const usages: TokenUsage[] = [];
    for (let i = 0; i < turns; i++) {
      const response = await model.callModel(ask(messages));
      usages.push(response.usage);
      messages.push({ role: 'assistant', content: response.content });
      const call = response.content.find((b) => b.type === 'tool_use');
      if (call?.type !== 'tool_use') throw new Error('expected a tool call');
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: `output ${i} ${'x'.repeat(400)}` }],
      });
    }
    expect(usages[0]?.cacheRead).toBe(0);
    for (const later of usages.slice(1))
      expect(later.cacheRead).toBeGreaterThan(later.input + later.cacheWrite);
  });
});

describe('anthropic adapter: failures', () => {
  it('a 429 arrives classified as rate_limit with the server wait, after exactly one HTTP request', async () => {
    const { emulator, model } = setup([
      reply.error(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', {
        'retry-after': '12',
      }),
    ]);
    const err = await failureOf(model.callModel(ask([{ role: 'user', content: 'x' }])));
    expect(err.classified).toMatchObject({
      errorClass: 'rate_limit',
      status: 429,
      retryAfterMs: 12_000,
      source: 'anthropic',
    });
    expect(err.model).toBe(MODEL);
    expect(messagesCalls(emulator)).toHaveLength(1);
  });

  it.each([
    [529, 'overloaded_error', 'overloaded'],
    [500, 'api_error', 'server_error'],
    [504, 'timeout_error', 'timeout'],
    [401, 'authentication_error', 'auth'],
    [402, 'billing_error', 'billing'],
    [400, 'invalid_request_error', 'invalid_request'],
  ] as const)('%i %s is classified %s, and the SDK does not retry it', async (status, type, errorClass) => {
    const { emulator, model } = setup([reply.error(status, type, 'nope')]);
    const err = await failureOf(model.callModel(ask([{ role: 'user', content: 'x' }])));
    expect(err.classified.errorClass).toBe(errorClass);
    expect(messagesCalls(emulator)).toHaveLength(1);
  });

  it('prompt too long is context_overflow', async () => {
    const { model } = setup([
      reply.error(400, 'invalid_request_error', 'prompt is too long: 200082 tokens > 200000 maximum'),
    ]);
    const err = await failureOf(model.callModel(ask([{ role: 'user', content: 'x' }])));
    expect(err.classified.errorClass).toBe('context_overflow');
  });

  it('an error event in the middle of a stream is classified like the HTTP error', async () => {
    const { model } = setup([
      {
        streamError: { type: 'overloaded_error', message: 'Overloaded' },
        content: [{ type: 'text', text: 'par' }],
      },
    ]);
    const err = await failureOf(model.callModel(ask([{ role: 'user', content: 'x' }], 64_000)));
    expect(err.classified.errorClass).toBe('overloaded');
  });

  it('an abort ends a hanging call at once, as an abort (never retried)', async () => {
    const emulator = createAnthropicEmulator({ script: () => ({ hang: true }) });
    const server = await emulator.listen();
    open.push(server);
    const model = createAnthropicModel({ apiKey: emulator.apiKey, baseURL: server.url });
    const controller = new AbortController();
    const pending = model.callModel(ask([{ role: 'user', content: 'x' }]), controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: expect.stringMatching(/Abort/) });
  });

  it('with the reliable call around it, one 429 costs exactly two HTTP requests: our retry, no SDK retry', async () => {
    const { emulator, model } = setup([
      reply.error(429, 'rate_limit_error', 'slow down', { 'retry-after': '1' }),
      reply.text('ok'),
    ]);
    const clock = new FakeClock();
    const call = createReliableCall({
      call: model.callModel,
      chain: createFailoverChain({ primary: MODEL, fallbacks: [], now: () => clock.now() }),
      deps: { clock, random: createSeededRandom(3), log: createMemoryLog() },
    });
    const response = await call(ask([{ role: 'user', content: 'x' }]));
    expect(response.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(messagesCalls(emulator)).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('fails over to the fallback model on the real wire, carrying the same messages', async () => {
    const { emulator, model } = setup([
      reply.error(529, 'overloaded_error', 'Overloaded'),
      reply.text('from opus'),
    ]);
    const clock = new FakeClock();
    const call = createReliableCall({
      call: model.callModel,
      chain: createFailoverChain({ primary: MODEL, fallbacks: ['claude-opus-5'], now: () => clock.now() }),
      deps: { clock, random: createSeededRandom(3), log: createMemoryLog() },
    });
    const response = await call(ask([{ role: 'user', content: 'x' }]));
    expect(response.model).toBe('claude-opus-5');
    const [first, second] = messagesCalls(emulator).map(
      (r) => r.body as { model: string; messages: unknown },
    );
    expect([first?.model, second?.model]).toEqual([MODEL, 'claude-opus-5']);
    expect(second?.messages).toEqual(first?.messages);
  });
});

describe('anthropic adapter: context window', () => {
  it('comes from GET /v1/models/{id} (max_input_tokens), asked once per model', async () => {
    const emulator = createAnthropicEmulator({
      models: { [MODEL]: { maxInputTokens: 123_456, maxTokens: 64_000 } },
    });
    const model = createAnthropicModel({
      apiKey: emulator.apiKey,
      baseURL: emulator.baseUrl,
      fetch: emulator.fetch,
    });
    expect(await model.contextWindow(MODEL)).toBe(123_456);
    expect(await model.contextWindow(MODEL)).toBe(123_456);
    expect(emulator.requests.filter((r) => r.path === `/v1/models/${MODEL}`)).toHaveLength(1);
  });

  it('is undefined for a model the API does not know, so the config fallback applies', async () => {
    const emulator = createAnthropicEmulator();
    const model = createAnthropicModel({
      apiKey: emulator.apiKey,
      baseURL: emulator.baseUrl,
      fetch: emulator.fetch,
    });
    expect(await model.contextWindow('claude-nonexistent')).toBeUndefined();
  });
});
