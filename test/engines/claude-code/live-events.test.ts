import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { createLiveEvents } from '../../../src/engines/claude-code/live-events.js';
import type { StreamEvent } from '../../../src/engines/claude-code/stream-events.js';

/** Claude Code's stream as the session's events: what the live line and the ledger are told. */
const usage = (input: number, cacheWrite = 0, cacheRead = 0, output = 0) => ({
  input,
  cacheWrite,
  cacheRead,
  output,
});
const response = (id: string, model: string, u = usage(0)): StreamEvent => ({
  type: 'response',
  id,
  model,
  usage: u,
});

function live(model = 'claude-code:sonnet') {
  const told: AgentEvent[] = [];
  const events = createLiveEvents((event) => told.push(event), model);
  return { told, events, calls: () => told.filter((e) => e.type === 'model_call') };
}

describe('live events of a Claude Code call', () => {
  it('tells each response when the next begins, at no cost, and the last with the whole call’s cost', () => {
    const { events, calls } = live();
    events.event(response('m1', 'claude-sonnet-5-5', usage(10, 200, 3000, 4)));
    expect(calls()).toEqual([]);
    events.event(response('m2', 'claude-sonnet-5-5', usage(1, 2, 3, 5)));
    events.callEnded(0.25);
    expect(calls()).toEqual([
      {
        type: 'model_call',
        call: 1,
        turnCall: 1,
        model: 'claude-code:claude-sonnet-5-5',
        stopReason: null,
        usage: usage(10, 200, 3000, 4),
        costUsd: 0,
        contextTokens: 3214,
      },
      {
        type: 'model_call',
        call: 2,
        turnCall: 2,
        model: 'claude-code:claude-sonnet-5-5',
        stopReason: null,
        usage: usage(1, 2, 3, 5),
        costUsd: 0.25,
        contextTokens: 11,
      },
    ]);
  });

  it('regression: the costs told add up to what the call cost, over several calls', () => {
    const { events, calls } = live();
    events.event(response('a', 'm'));
    events.event(response('b', 'm'));
    events.callEnded(0.5);
    events.event(response('c', 'm'));
    events.callEnded(0.25);
    const costs = calls().map((e) => (e.type === 'model_call' ? e.costUsd : Number.NaN));
    expect(costs).toEqual([0, 0.5, 0.25]);
  });

  it('counts calls across the session and per call (turnCall starts again with each call)', () => {
    const { events, calls } = live();
    events.event(response('a', 'm'));
    events.event(response('b', 'm'));
    events.callEnded(0.1);
    events.event(response('c', 'm'));
    events.callEnded(0.1);
    expect(calls().map((e) => (e.type === 'model_call' ? [e.call, e.turnCall] : []))).toEqual([
      [1, 1],
      [2, 2],
      [3, 1],
    ]);
  });

  it('a call that cost something but showed no response is still told, with the engine’s model and no usage', () => {
    const { events, calls } = live('claude-code:opus');
    events.callEnded(0.03);
    expect(calls()).toEqual([
      {
        type: 'model_call',
        call: 0,
        turnCall: 0,
        model: 'claude-code:opus',
        stopReason: null,
        usage: usage(0),
        costUsd: 0.03,
        contextTokens: 0,
      },
    ]);
  });

  it('a call that showed nothing and cost nothing tells nothing; a response is told only once', () => {
    const { events, told } = live();
    events.callEnded(0);
    expect(told).toEqual([]);
    events.event(response('a', ''));
    events.callEnded(0);
    events.callEnded(0);
    expect(told).toEqual([
      expect.objectContaining({ type: 'model_call', costUsd: 0, model: 'claude-code:sonnet' }),
    ]);
  });

  it('tells tool calls at once, and names each result after its call (an unknown id is "tool")', () => {
    const { events, told } = live();
    events.event({ type: 'tool_call', id: 't1', name: 'Bash', input: { command: 'ls' } });
    events.event({ type: 'tool_result', id: 't1', isError: true, chars: 12 });
    events.event({ type: 'tool_result', id: 'nobody', isError: false, chars: 0 });
    expect(told).toEqual([
      { type: 'tool_call', id: 't1', name: 'Bash', input: { command: 'ls' } },
      { type: 'tool_result', id: 't1', name: 'Bash', isError: true, chars: 12, durationMs: 0 },
      { type: 'tool_result', id: 'nobody', name: 'tool', isError: false, chars: 0, durationMs: 0 },
    ]);
  });

  it('runs without an observer', () => {
    const events = createLiveEvents(undefined, 'm');
    events.event(response('a', 'm'));
    events.event({ type: 'tool_call', id: 't', name: 'Bash', input: {} });
    events.event({ type: 'tool_result', id: 't', isError: false, chars: 1 });
    expect(() => events.callEnded(1)).not.toThrow();
  });
});
