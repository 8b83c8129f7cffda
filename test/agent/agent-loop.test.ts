import { describe, expect, it } from 'vitest';
import {
  type AgentOptions,
  CONTINUE_PROMPT,
  CUT_TOOL_CALL,
  createAgent,
} from '../../src/agent/agent-loop.js';
import { pairingProblems } from '../../src/agent/compaction/index.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { DEFAULT_LIMITS } from '../../src/agent/limits.js';
import type { ToolOutput } from '../../src/agent/tools/types.js';
import { classifyError } from '../../src/core/classify/classify-error.js';
import { ModelError } from '../../src/model/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { respond, type Step, scriptedModel, text, toolCalls, usage } from '../helpers/fake-model.js';

function fakeTools(
  run: (name: string, input: unknown) => ToolOutput | Promise<ToolOutput> = () => ({
    content: 'ok',
    isError: false,
  }),
) {
  const calls: Array<{ name: string; input: unknown }> = [];
  return {
    calls,
    definitions: [{ type: 'bash_20250124' as const, name: 'bash' as const }],
    run: async (name: string, input: unknown) => {
      calls.push({ name, input });
      return run(name, input);
    },
  };
}

/** Tool output large enough that dropping it shrinks the context past the summary's own size. */
const bigOutput = () => fakeTools(() => ({ content: 'x'.repeat(20_000), isError: false }));

function setup(steps: Step[], overrides: Partial<AgentOptions> = {}) {
  const model = scriptedModel(steps);
  const events: AgentEvent[] = [];
  const tools = fakeTools();
  const clock = new FakeClock();
  const options: AgentOptions = {
    callModel: model.call,
    model: 'claude-test',
    system: async () => ['system prompt'],
    tools,
    limits: { ...DEFAULT_LIMITS },
    contextWindow: 100_000,
    compactionThreshold: 0.8,
    maxOutputTokens: 4_000,
    clock,
    observer: (event) => events.push(event),
    ...overrides,
  };
  return { agent: createAgent(options), model, events, tools: options.tools as typeof tools, clock };
}

const apiError = (status: number, type: string, message: string, headers: Record<string, string> = {}) => {
  const err = Object.assign(new Error(`${status} ${message}`), {
    status,
    headers,
    error: { type: 'error', error: { type, message } },
  });
  return new ModelError('claude-test', classifyError(err), { cause: err });
};

describe('agent loop: tools', () => {
  it('runs every tool call of one assistant message and answers them all in one user message', async () => {
    const { agent, model, tools } = setup([
      toolCalls([
        { name: 'bash', input: { command: 'ls' } },
        { name: 'bash', input: { command: 'pwd' } },
        { name: 'bash', input: { command: 'date' } },
      ]),
      text('done: listed files'),
    ]);
    const result = await agent.run('Issue #1: list files');
    expect(result.stop).toBe('end_turn');
    expect(result.finalText).toBe('done: listed files');
    expect(tools.calls.map((c) => c.input)).toEqual([
      { command: 'ls' },
      { command: 'pwd' },
      { command: 'date' },
    ]);
    const second = model.requests[1]?.messages ?? [];
    expect(second).toHaveLength(3);
    const results = second[2]?.content;
    expect(Array.isArray(results) && results.map((b) => b.type)).toEqual([
      'tool_result',
      'tool_result',
      'tool_result',
    ]);
    expect(result.totals).toMatchObject({ modelCalls: 2, toolCalls: 3, toolErrors: 0 });
    expect(pairingProblems(agent.messages())).toEqual([]);
  });

  it('a failing tool is a tool result with is_error, and the loop goes on', async () => {
    const { agent, model } = setup(
      [toolCalls([{ name: 'bash', input: { command: 'false' } }]), text('it failed, stopping')],
      { tools: fakeTools(() => ({ content: 'boom\n[exit code 1]', isError: true })) },
    );
    const result = await agent.run('go');
    expect(result.stop).toBe('end_turn');
    expect(result.totals.toolErrors).toBe(1);
    const last = model.requests[1]?.messages.at(-1)?.content;
    expect(last).toEqual([
      expect.objectContaining({ type: 'tool_result', is_error: true, content: 'boom\n[exit code 1]' }),
    ]);
  });

  it('a tool that throws becomes an is_error result, not an exception across the loop', async () => {
    const { agent } = setup([toolCalls([{ name: 'bash', input: {} }]), text('ok')], {
      tools: fakeTools(() => {
        throw new Error('disk on fire');
      }),
    });
    const result = await agent.run('go');
    expect(result.stop).toBe('end_turn');
    expect(JSON.stringify(agent.messages()[2])).toContain('tool failed: disk on fire');
  });

  it('redacts tool output before the model sees it', async () => {
    const { agent, model } = setup([toolCalls([{ name: 'bash', input: {} }]), text('ok')], {
      tools: fakeTools(() => ({ content: 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789', isError: false })),
      redact: (s) => s.replace(/ghp_\w+/g, '[REDACTED]'),
    });
    await agent.run('go');
    const seen = JSON.stringify(model.requests[1]?.messages);
    expect(seen).toContain('token=[REDACTED]');
    expect(seen).not.toContain('ghp_');
  });
});

describe('agent loop: limits', () => {
  const forever = (): Step => () => toolCalls([{ name: 'bash', input: { command: 'true' } }]);

  it('stops after max_model_calls_per_turn calls without end_turn, with tool pairing intact', async () => {
    const { agent, model } = setup(Array.from({ length: 10 }, forever), {
      limits: { ...DEFAULT_LIMITS, maxModelCallsPerTurn: 4 },
    });
    const result = await agent.run('go');
    expect(result.stop).toBe('turn_call_limit');
    expect(model.requests).toHaveLength(4);
    expect(agent.messages().at(-1)?.role).toBe('user');
    expect(pairingProblems(agent.messages())).toEqual([]);
  });

  it('the per-turn count starts again with the next turn; the session count does not', async () => {
    const { agent } = setup([forever(), text('a'), forever(), text('b'), forever()], {
      limits: { ...DEFAULT_LIMITS, maxModelCallsPerTurn: 2, maxModelCalls: 5 },
    });
    expect((await agent.run('one')).stop).toBe('end_turn');
    expect((await agent.run('two')).stop).toBe('end_turn');
    const third = await agent.run('three');
    expect(third.stop).toBe('model_call_limit');
    expect(third.totals.modelCalls).toBe(5);
  });

  it('each budget ends the session with its own stop', async () => {
    const tokens = setup(
      Array.from({ length: 5 }, () => toolCalls([{ name: 'bash', input: {} }], { usage: usage(40_000) })),
      {
        limits: { ...DEFAULT_LIMITS, maxTokens: 100_000 },
      },
    );
    expect((await tokens.agent.run('go')).stop).toBe('token_limit');
    expect(tokens.model.requests).toHaveLength(3);

    const dollars = setup(
      Array.from({ length: 5 }, () => toolCalls([{ name: 'bash', input: {} }], { costUsd: 0.4 })),
      {
        limits: { ...DEFAULT_LIMITS, maxUsd: 1 },
      },
    );
    const spent = await dollars.agent.run('go');
    expect(spent.stop).toBe('cost_limit');
    expect(spent.totals.costUsd).toBeCloseTo(1.2);

    const clock = new FakeClock();
    const slow = setup(Array.from({ length: 5 }, forever), {
      clock,
      limits: { ...DEFAULT_LIMITS, maxDurationMs: 60_000 },
      tools: fakeTools(() => {
        clock.advance(25_000);
        return { content: 'ok', isError: false };
      }),
    });
    const timed = await slow.agent.run('go');
    expect(timed.stop).toBe('time_limit');
    expect(timed.totals.durationMs).toBe(75_000);
  });
});

describe('agent loop: stop reasons', () => {
  it('stop_sequence and a missing stop reason end the turn like end_turn', async () => {
    for (const reason of ['stop_sequence', null] as const) {
      const { agent } = setup([respond([{ type: 'text', text: 'x' }], reason)]);
      expect((await agent.run('go')).stop).toBe('end_turn');
    }
  });

  it('refusal ends the session with that reason', async () => {
    const { agent } = setup([respond([{ type: 'text', text: 'I cannot help with that.' }], 'refusal')]);
    const result = await agent.run('go');
    expect(result.stop).toBe('refusal');
    expect(result.reason).toContain('I cannot help with that.');
  });

  it('pause_turn sends the conversation back as it is, so the model resumes', async () => {
    const { agent, model } = setup([
      respond([{ type: 'text', text: 'thinking…' }], 'pause_turn'),
      text('resumed'),
    ]);
    const result = await agent.run('go');
    expect(result.stop).toBe('end_turn');
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'thinking…' }],
    });
  });

  it('pause_turn with a client tool call runs it before resuming', async () => {
    const paused = respond([{ type: 'tool_use', id: 'toolu_p', name: 'bash', input: {} }], 'pause_turn');
    const { agent, tools } = setup([paused, text('ok')]);
    expect((await agent.run('go')).stop).toBe('end_turn');
    expect(tools.calls).toHaveLength(1);
    expect(pairingProblems(agent.messages())).toEqual([]);
  });

  it('the window cutting every answer ends as context_overflow after two compactions, not a loop', async () => {
    const cut = () =>
      respond([{ type: 'text', text: 'cut' }], 'model_context_window_exceeded', { usage: usage(10) });
    const summary = text('## Decisions\nd\n## Current state\ns\n## Open task\nt');
    const steps: Step[] = [
      toolCalls([{ name: 'bash', input: {} }]),
      toolCalls([{ name: 'bash', input: {} }]),
    ];
    for (let i = 0; i < 6; i++) steps.push(cut(), summary);
    const { agent, model } = setup(steps, { tools: bigOutput() });
    const result = await agent.run('go');
    expect(result.stop).toBe('context_overflow');
    expect(model.requests.length).toBeLessThanOrEqual(8);
  });

  it('max_tokens on text asks the model to continue', async () => {
    const { agent, model } = setup([
      respond([{ type: 'text', text: 'half an ans' }], 'max_tokens'),
      text('wer'),
    ]);
    expect((await agent.run('go')).stop).toBe('end_turn');
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: CONTINUE_PROMPT });
  });

  it('max_tokens inside a tool call answers the cut call with an error instead of running it', async () => {
    const cut = respond(
      [{ type: 'tool_use', id: 'toolu_cut', name: 'bash', input: { comm: 1 } }],
      'max_tokens',
    );
    const { agent, tools, model } = setup([cut, text('ok')]);
    await agent.run('go');
    expect(tools.calls).toHaveLength(0);
    expect(model.requests[1]?.messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_cut', content: CUT_TOOL_CALL, is_error: true },
    ]);
    expect(pairingProblems(agent.messages())).toEqual([]);
  });

  it('model_context_window_exceeded compacts, then asks again', async () => {
    const steps: Step[] = [
      toolCalls([{ name: 'bash', input: { command: 'cat big' } }]),
      toolCalls([{ name: 'bash', input: { command: 'cat bigger' } }]),
      respond([{ type: 'text', text: 'partial' }], 'model_context_window_exceeded'),
      text('## Decisions\nread files\n## Current state\nhalf\n## Open task\nfinish'),
      text('finished'),
    ];
    const { agent, model, events } = setup(steps, { tools: bigOutput() });
    const result = await agent.run('Issue #7: big');
    expect(result.stop).toBe('end_turn');
    expect(result.totals.compactions).toBe(1);
    expect(model.requests[3]?.system.join('')).toContain('summarise');
    const first = JSON.stringify(model.requests[4]?.messages[0]);
    expect(first).toContain('CONTEXT FROM PREVIOUS SESSION:');
    expect(first).toContain('Issue #7: big');
    expect(JSON.stringify(model.requests[4]?.messages)).not.toContain('partial');
    expect(events.filter((e) => e.type === 'compaction')).toEqual([
      expect.objectContaining({ trigger: 'overflow', ok: true }),
    ]);
    expect(pairingProblems(agent.messages())).toEqual([]);
  });

  it('end_turn with a stray tool call answers it, so the conversation stays valid', async () => {
    const stray = respond([{ type: 'tool_use', id: 'toolu_x', name: 'bash', input: {} }], 'end_turn');
    const { agent } = setup([stray]);
    expect((await agent.run('go')).stop).toBe('end_turn');
    expect(pairingProblems(agent.messages())).toEqual([]);
  });
});

describe('agent loop: model failures are data', () => {
  it('an auth failure ends the session with model_error and its class, without another call', async () => {
    const { agent, model, events } = setup([apiError(401, 'authentication_error', 'invalid x-api-key')]);
    const result = await agent.run('go');
    expect(result.stop).toBe('model_error');
    expect(result.error?.errorClass).toBe('auth');
    expect(model.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'session_end', stop: 'model_error' });
  });

  it('a prompt-too-long error compacts and retries', async () => {
    const { agent, model } = setup(
      [
        toolCalls([{ name: 'bash', input: {} }]),
        toolCalls([{ name: 'bash', input: {} }]),
        apiError(400, 'invalid_request_error', 'prompt is too long: 200082 tokens > 200000 maximum'),
        text('## Decisions\nx\n## Current state\ny\n## Open task\nz'),
        text('done'),
      ],
      { tools: bigOutput() },
    );
    const result = await agent.run('go');
    expect(result.stop).toBe('end_turn');
    expect(result.totals.compactions).toBe(1);
    expect(model.requests).toHaveLength(5);
  });

  it('context overflow that compaction cannot fix stops with context_overflow, never a loop', async () => {
    const overflow = () =>
      apiError(400, 'invalid_request_error', 'prompt is too long: 200082 tokens > 200000 maximum');
    // Nothing before the first message can be dropped: compaction fails at once.
    const { agent, model } = setup([overflow, overflow, overflow]);
    const result = await agent.run('one huge message');
    expect(result.stop).toBe('context_overflow');
    expect(result.reason).toContain('compaction failed');
    expect(model.requests.length).toBeLessThanOrEqual(2);
  });

  it('an abort during a tool batch answers the remaining calls and stops as aborted', async () => {
    const controller = new AbortController();
    const { agent } = setup(
      [
        toolCalls([
          { name: 'bash', input: { n: 1 } },
          { name: 'bash', input: { n: 2 } },
        ]),
      ],
      {
        signal: controller.signal,
        tools: fakeTools(() => {
          controller.abort();
          return { content: 'first ran', isError: false };
        }),
      },
    );
    const result = await agent.run('go');
    expect(result.stop).toBe('aborted');
    const results = agent.messages().at(-1)?.content;
    expect(JSON.stringify(results)).toContain('not run: the session was interrupted');
    expect(pairingProblems(agent.messages())).toEqual([]);
  });
});
