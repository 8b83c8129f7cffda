import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  createAnthropicEmulator,
  reply,
  type Script,
  scriptQueue,
} from '../../../src/emulators/anthropic/index.js';
import { clientFor, clocked, MODEL, rejectionOf, useListeners } from './fixtures.js';

const open = useListeners();

const ASK: Anthropic.MessageCreateParamsNonStreaming = {
  model: MODEL,
  max_tokens: 1024,
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'Read the config, please.' }],
};

// Long enough for several text deltas, with astral characters that must not be split in half.
const LONG_TEXT = `I will read it now 🚀🚀 and then report back on ${'every setting '.repeat(6)}✅`;
const TOOL_INPUT = { path: 'src/config/load.ts', lines: [1, 200], note: 'the "quoted" part 🚀' };
const twoBlocks: Script = () => reply.toolUse([{ name: 'read_file', input: TOOL_INPUT }], LONG_TEXT);

describe('POST /v1/messages', () => {
  it('answers a scripted text reply in the API shape, with usage', async () => {
    const { client } = clocked({ script: scriptQueue([reply.text('Done.')]) });
    const message = await client.messages.create(ASK);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text: 'Done.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.cache_creation_input_tokens).toBe(0);
    expect(message.usage.cache_read_input_tokens).toBe(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('assigns toolu_<n> ids to tool calls, keeps given ids, and honours outputTokens', async () => {
    const { client, emulator } = clocked({
      script: scriptQueue([
        reply.toolUse([
          { name: 'read_file', input: { path: 'a.ts' } },
          { name: 'read_file', input: { path: 'b.ts' }, id: 'toolu_mine' },
        ]),
        {
          content: [{ type: 'tool_use', name: 'run_tests', input: {} }],
          stopReason: 'tool_use',
          outputTokens: 77,
        },
      ]),
    });
    const first = await client.messages.create(ASK);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'toolu_mine', name: 'read_file', input: { path: 'b.ts' } },
    ]);
    const second = await client.messages.create(ASK);
    expect(second.content).toEqual([{ type: 'tool_use', id: 'toolu_2', name: 'run_tests', input: {} }]);
    expect(second.usage.output_tokens).toBe(77);
    expect(emulator.cacheStats()).toMatchObject({ requests: 2 });
    expect(emulator.cacheStats().output).toBe(first.usage.output_tokens + 77);
  });

  it('echoes the last user text when no script is given', async () => {
    const client = clientFor(createAnthropicEmulator());
    const message = await client.messages.create(ASK);
    expect(message.content).toEqual([{ type: 'text', text: 'Read the config, please.' }]);
  });

  it('logs each request with the parsed body, redacted credentials and the stream flag', async () => {
    const { client, emulator } = clocked();
    await client.messages.create(ASK);
    await client.messages.stream(ASK).finalMessage();
    expect(emulator.requests.map((r) => [r.method, r.path, r.status, r.stream])).toEqual([
      ['POST', '/v1/messages', 200, false],
      ['POST', '/v1/messages', 200, true],
    ]);
    const [first] = emulator.requests;
    expect(first?.body).toMatchObject({ model: MODEL, max_tokens: 1024 });
    expect(first?.headers.authorization).toBe('[redacted]');
    expect(first?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('answers the last script entry and then 500 "script exhausted"', async () => {
    const { client } = clocked({ script: scriptQueue([reply.text('only one')]) });
    await client.messages.create(ASK);
    const error = await rejectionOf(client.messages.create(ASK));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error).toMatchObject({ status: 500, type: 'api_error', apiMessage: 'script exhausted' });
  });
  it('turns a script that throws into a 500 api_error', async () => {
    const { client } = clocked({
      script: () => {
        throw new Error('no reply for this turn');
      },
    });
    const error = await rejectionOf(client.messages.create(ASK));
    expect(error).toMatchObject({
      status: 500,
      type: 'api_error',
      apiMessage: 'script failed: no reply for this turn',
    });
  });
});

describe('streaming', () => {
  it('finalMessage() equals the non-streamed message, tool input rebuilt from input_json_delta', async () => {
    const created = await clocked({ script: twoBlocks }).client.messages.create(ASK);
    const streamed = await clocked({ script: twoBlocks }).client.messages.stream(ASK).finalMessage();
    // The SDK adds its own `parsed_output` to streamed messages.
    expect({ ...streamed, parsed_output: undefined }).toEqual(created);
    expect(streamed.content[1]).toMatchObject({ type: 'tool_use', input: TOOL_INPUT });
    expect(streamed.usage.output_tokens).toBeGreaterThan(1);
  });

  it('sends the API’s event sequence in small deltas', async () => {
    const { client } = clocked({ script: twoBlocks });
    const stream = await client.messages.create({ ...ASK, stream: true });
    const types: string[] = [];
    let json = '';
    for await (const event of stream) {
      types.push(event.type === 'content_block_delta' ? event.delta.type : event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
        json += event.delta.partial_json;
      }
      if (event.type === 'message_start') expect(event.message.usage.output_tokens).toBe(1);
    }
    const compact = types.filter((t, i) => t !== types[i - 1]);
    expect(compact).toEqual([
      'message_start',
      'content_block_start',
      'text_delta',
      'content_block_stop',
      'content_block_start',
      'input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(types.filter((t) => t === 'text_delta').length).toBeGreaterThan(2);
    expect(types.filter((t) => t === 'input_json_delta').length).toBeGreaterThan(1);
    expect(JSON.parse(json)).toEqual(TOOL_INPUT);
  });

  it('streams over a real loopback listener', async () => {
    const emulator = createAnthropicEmulator({ script: twoBlocks });
    const server = await emulator.listen();
    open.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new Anthropic({ apiKey: emulator.apiKey, baseURL: server.url, maxRetries: 0 });
    const message = await client.messages.stream(ASK).finalMessage();
    expect(message.content).toEqual([
      { type: 'text', text: LONG_TEXT },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: TOOL_INPUT },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('surfaces a mid-stream error event as an error from finalMessage()', async () => {
    const { client } = clocked({
      script: () => ({
        streamError: { type: 'overloaded_error', message: 'Overloaded' },
        content: [{ type: 'text', text: 'partial answer' }],
        afterBlocks: 1,
      }),
    });
    const stream = client.messages.stream(ASK);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    const error = await rejectionOf(stream.finalMessage());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ type: 'overloaded_error', apiMessage: 'Overloaded' });
    expect(texts.join('')).toBe('partial answer');
  });

  it('answers a streamError as an HTTP status when the request did not stream', async () => {
    const { client } = clocked({
      script: () => ({ streamError: { type: 'overloaded_error', message: 'Overloaded' } }),
    });
    const error = await rejectionOf(client.messages.create(ASK));
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(error).toMatchObject({ status: 529, type: 'overloaded_error' });
  });
});

describe('models and count_tokens', () => {
  it('retrieves a model with its limits, and 404s an unknown one', async () => {
    const { client } = clocked();
    const info = await client.models.retrieve('claude-sonnet-5-5');
    expect(info).toMatchObject({
      type: 'model',
      id: 'claude-sonnet-5-5',
      display_name: 'Claude Sonnet 5.5',
      max_input_tokens: 200_000,
      max_tokens: 64_000,
      line: 'sonnet',
    });
    expect(Number.isNaN(Date.parse(info.created_at))).toBe(false);
    const missing = await rejectionOf(client.models.retrieve('claude-nope-1'));
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missing).toMatchObject({ type: 'not_found_error', apiMessage: 'model: claude-nope-1' });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5']);
  });

  it('counts tokens without consulting the script, and grows with the prompt', async () => {
    const { client, emulator } = clocked({ script: scriptQueue([]) });
    const small = await client.messages.countTokens({ model: MODEL, messages: ASK.messages });
    const large = await client.messages.countTokens({
      model: MODEL,
      system: 'x'.repeat(4000),
      messages: ASK.messages,
    });
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(large.input_tokens - small.input_tokens).toBeGreaterThanOrEqual(1000);
    expect(emulator.cacheStats().requests).toBe(0);
  });
});
