import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { checkToolPairing } from '../../../src/emulators/anthropic/pairing.js';
import type { RequestMessage } from '../../../src/emulators/anthropic/types.js';
import { clocked, MODEL, rejectionOf } from './fixtures.js';

const user = (text: string): RequestMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): RequestMessage => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool_use', id, name: 'read_file', input: {} })),
});
const results = (...ids: string[]): RequestMessage => ({
  role: 'user',
  content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' })),
});

describe('checkToolPairing', () => {
  it('accepts every tool_use answered in the very next message', () => {
    expect(checkToolPairing([user('go'), calls('toolu_a', 'toolu_b'), results('toolu_b', 'toolu_a')])).toBe(
      undefined,
    );
  });

  it('names the unanswered ids and the assistant message holding them', () => {
    expect(
      checkToolPairing([
        user('go'),
        calls('toolu_a'),
        results('toolu_a'),
        calls('toolu_x', 'toolu_y'),
        results('toolu_y'),
      ]),
    ).toBe(
      'messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it('refuses a tool_use left as the last message', () => {
    expect(checkToolPairing([user('go'), calls('toolu_a')])).toMatch(
      /^messages\.1: `tool_use` ids were found/,
    );
  });

  it('refuses a tool_result that answers nothing in the previous message', () => {
    expect(
      checkToolPairing([
        user('go'),
        calls('toolu_a'),
        results('toolu_a'),
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        results('toolu_a'),
      ]),
    ).toBe(
      'messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_a. ' +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('refuses a result that arrives one message late', () => {
    const late = [
      user('go'),
      calls('toolu_a'),
      user('wait'),
      { role: 'assistant' as const, content: [{ type: 'text', text: 'hm' }] },
      results('toolu_a'),
    ];
    expect(checkToolPairing(late)).toMatch(/^messages\.1: .*toolu_a\./);
  });

  it('refuses reused tool_use ids and tool blocks on the wrong side', () => {
    expect(
      checkToolPairing([
        user('go'),
        calls('toolu_a'),
        results('toolu_a'),
        calls('toolu_a'),
        results('toolu_a'),
      ]),
    ).toBe('messages.3.content.0: `tool_use` ids must be unique');
    expect(
      checkToolPairing([{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }]),
    ).toMatch(/^messages\.0\.content\.0: `tool_use` blocks can only appear in `assistant` messages/);
  });
});

describe('pairing through the API', () => {
  it('answers 400 invalid_request_error for a broken conversation, before the script runs', async () => {
    let scripted = 0;
    const { client, emulator } = clocked({
      script: () => {
        scripted += 1;
        return { content: [{ type: 'text', text: 'no' }], stopReason: 'end_turn' };
      },
    });
    const error = await rejectionOf(
      client.messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'read_file', input: {} }] },
          { role: 'user', content: 'forgot the result' },
        ],
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as APIError).apiMessage).toMatch(
      /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x\./,
    );
    expect(scripted).toBe(0);
    expect(emulator.requests[0]?.status).toBe(400);
  });

  it('requires the first message to come from the user', async () => {
    const { client } = clocked();
    const error = await rejectionOf(
      client.messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [{ role: 'assistant', content: 'hi' }],
      }),
    );
    expect(error).toMatchObject({
      status: 400,
      apiMessage: 'messages: first message must use the "user" role',
    });
  });
});
