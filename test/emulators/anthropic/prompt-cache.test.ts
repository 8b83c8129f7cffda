import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '../../../src/emulators/anthropic/index.js';
import { bigTools, clocked, MODEL, SYSTEM } from './fixtures.js';

const BREAK = { type: 'ephemeral' } as const;
const MINUTE = 60_000;

type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, 'max_tokens'>;

function cachedTools(ttl?: '5m' | '1h'): Anthropic.Tool[] {
  const tools = bigTools();
  const last = tools.at(-1);
  if (last) last.cache_control = ttl ? { type: 'ephemeral', ttl } : BREAK;
  return tools;
}

function unmarkedBlock(block: Anthropic.ContentBlockParam): Anthropic.ContentBlockParam {
  if (!('cache_control' in block)) return block;
  const { cache_control: _drop, ...rest } = block;
  return rest as Anthropic.ContentBlockParam;
}

/** The conversation so far, without breakpoints, so the next request can place its own. */
function unmarked(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  return messages.map((m) =>
    m.role === 'system' || typeof m.content === 'string'
      ? m
      : { role: m.role, content: m.content.map(unmarkedBlock) },
  );
}

function asParams(content: Anthropic.ContentBlock[]): Anthropic.ContentBlockParam[] {
  return content.map((block): Anthropic.ContentBlockParam => {
    if (block.type === 'tool_use') {
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    }
    if (block.type === 'text') return { type: 'text', text: block.text };
    throw new Error(`unexpected block ${block.type}`);
  });
}

describe('prompt cache accounting', () => {
  it('reads the shared prefix of a growing 10-turn conversation and splits every token once', async () => {
    const { client, emulator } = clocked({
      script: (_request, index) =>
        reply.toolUse([{ name: 'read_file', input: { path: `src/file-${index}.ts` } }]),
    });
    const tools = cachedTools();
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: SYSTEM, cache_control: BREAK }];
    let messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'Fix issue #12.', cache_control: BREAK }] },
    ];
    let previousTotal = 0;
    const sums = { input: 0, cacheWrite: 0, cacheRead: 0 };
    for (let turn = 0; turn < 10; turn += 1) {
      const { input_tokens: total } = await client.messages.countTokens({
        model: MODEL,
        tools,
        system,
        messages,
      });
      const message = await client.messages.create({
        model: MODEL,
        max_tokens: 1024,
        tools,
        system,
        messages,
      });
      const usage = message.usage;
      const read = usage.cache_read_input_tokens ?? 0;
      const write = usage.cache_creation_input_tokens ?? 0;
      expect(usage.input_tokens + write + read).toBe(total);
      // The breakpoint sits on the last block, so nothing is left uncached.
      expect(usage.input_tokens).toBe(0);
      expect(read).toBe(previousTotal);
      expect(write).toBe(total - previousTotal);
      if (turn > 0) expect(read).toBeGreaterThan(1024);
      sums.input += usage.input_tokens;
      sums.cacheWrite += write;
      sums.cacheRead += read;

      const toolUse = message.content.find((b) => b.type === 'tool_use');
      if (toolUse?.type !== 'tool_use') throw new Error('expected a tool call');
      const result: Anthropic.ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: toolUse.id,
        content: `contents of file ${turn}: ${'const x = 1;\n'.repeat(30)}`,
        cache_control: BREAK,
      };
      messages = [
        ...unmarked(messages),
        { role: 'assistant', content: asParams(message.content) },
        { role: 'user', content: [result] },
      ];
      previousTotal = total;
    }
    expect(emulator.cacheStats()).toMatchObject({ ...sums, requests: 10 });
  });

  it('keeps reading the tools prefix when the system prompt changes', async () => {
    const { client } = clocked();
    const tools = cachedTools();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'hi' }];
    const ask = (text: string) =>
      client.messages.create({
        model: MODEL,
        max_tokens: 100,
        tools,
        system: [{ type: 'text', text, cache_control: BREAK }],
        messages,
      });
    await ask(SYSTEM);
    const changed = await ask(`${SYSTEM} (revised)`);
    const withTools = await client.messages.countTokens({ model: MODEL, tools, messages });
    const without = await client.messages.countTokens({ model: MODEL, messages });
    expect(changed.usage.cache_read_input_tokens).toBe(withTools.input_tokens - without.input_tokens);
    expect(changed.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('does not cache a prefix below the minimum, silently', async () => {
    const small: Params = {
      model: MODEL,
      system: [{ type: 'text', text: 'Short system prompt.', cache_control: BREAK }],
      messages: [{ role: 'user', content: 'hi' }],
    };
    const { client } = clocked();
    const first = await client.messages.create({ ...small, max_tokens: 100 });
    const second = await client.messages.create({ ...small, max_tokens: 100 });
    for (const usage of [first.usage, second.usage]) {
      expect(usage.cache_creation_input_tokens).toBe(0);
      expect(usage.cache_read_input_tokens).toBe(0);
    }
    expect(second.usage.input_tokens).toBe(first.usage.input_tokens);

    const lowered = clocked({ minCacheableTokens: 1 }).client;
    await lowered.messages.create({ ...small, max_tokens: 100 });
    const cached = await lowered.messages.create({ ...small, max_tokens: 100 });
    expect(cached.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it('expires a 5-minute entry five minutes after its last use', async () => {
    const { client, advance } = clocked();
    const params = {
      model: MODEL,
      max_tokens: 100,
      tools: cachedTools(),
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    const first = await client.messages.create(params);
    const written = first.usage.cache_creation_input_tokens ?? 0;
    expect(written).toBeGreaterThan(1024);
    expect(first.usage.cache_creation).toEqual({
      ephemeral_5m_input_tokens: written,
      ephemeral_1h_input_tokens: 0,
    });
    advance(4 * MINUTE);
    expect((await client.messages.create(params)).usage.cache_read_input_tokens).toBe(written);
    // Refreshed by that read: 8 minutes after the write, it is still there.
    advance(4 * MINUTE);
    expect((await client.messages.create(params)).usage.cache_read_input_tokens).toBe(written);
    advance(5 * MINUTE);
    const expired = await client.messages.create(params);
    expect(expired.usage.cache_read_input_tokens).toBe(0);
    expect(expired.usage.cache_creation_input_tokens).toBe(written);
  });

  it('keeps a 1-hour entry past five minutes', async () => {
    const { client, advance } = clocked();
    const params = {
      model: MODEL,
      max_tokens: 100,
      tools: cachedTools('1h'),
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    const first = await client.messages.create(params);
    const written = first.usage.cache_creation_input_tokens ?? 0;
    expect(first.usage.cache_creation?.ephemeral_1h_input_tokens).toBe(written);
    advance(59 * MINUTE);
    expect((await client.messages.create(params)).usage.cache_read_input_tokens).toBe(written);
    advance(61 * MINUTE);
    expect((await client.messages.create(params)).usage.cache_read_input_tokens).toBe(0);
  });

  it('finds an earlier breakpoint up to 20 blocks back, not 21', async () => {
    const { client, emulator } = clocked();
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: SYSTEM, cache_control: BREAK }];
    const opening: Anthropic.MessageParam = {
      role: 'user',
      content: [{ type: 'text', text: 'x'.repeat(6000) }],
    };
    const base = { model: MODEL, max_tokens: 100, tools: bigTools(), system };
    const grown = (extra: number): Anthropic.MessageParam[] => [
      opening,
      { role: 'assistant', content: 'noted' },
      {
        role: 'user',
        content: Array.from({ length: extra - 1 }, (_, i) => ({
          type: 'text' as const,
          text: `note ${i}`,
          ...(i === extra - 2 ? { cache_control: BREAK } : {}),
        })),
      },
    ];
    const marked: Anthropic.MessageParam = {
      ...opening,
      content: [{ type: 'text', text: 'x'.repeat(6000), cache_control: BREAK }],
    };
    const first = await client.messages.create({ ...base, messages: [marked] });
    const openingTotal =
      (first.usage.cache_creation_input_tokens ?? 0) + (first.usage.cache_read_input_tokens ?? 0);

    const near = await client.messages.create({ ...base, messages: grown(20) });
    expect(near.usage.cache_read_input_tokens).toBe(openingTotal);

    emulator.resetCache();
    await client.messages.create({ ...base, messages: [marked] });
    const far = await client.messages.create({ ...base, messages: grown(21) });
    const hi: Anthropic.MessageParam[] = [{ role: 'user', content: 'hi' }];
    const withPrefix = await client.messages.countTokens({
      model: MODEL,
      tools: bigTools(),
      system,
      messages: hi,
    });
    const bare = await client.messages.countTokens({ model: MODEL, messages: hi });
    expect(far.usage.cache_read_input_tokens).toBeLessThan(openingTotal);
    expect(far.usage.cache_read_input_tokens).toBe(withPrefix.input_tokens - bare.input_tokens);
  });
});
