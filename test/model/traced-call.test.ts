import { afterEach, describe, expect, it } from 'vitest';
import { classifyError } from '../../src/core/classify/classify-error.js';
import { useTelemetry } from '../../src/core/telemetry.js';
import { GEN_AI } from '../../src/core/telemetry-names.js';
import { tracedCallModel } from '../../src/model/traced-call.js';
import { type CallModel, ModelError, type ModelRequest } from '../../src/model/types.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const PROMPT = 'secret plan: rewrite greet.js';
const request: ModelRequest = {
  model: 'claude-sonnet-5-5',
  system: ['You are an agent.'],
  messages: [{ role: 'user', content: PROMPT }],
  tools: [],
  maxTokens: 1000,
};

let restore: (() => void) | undefined;
afterEach(() => restore?.());

describe('tracedCallModel', () => {
  it('a model call is a `chat {model}` client span with the GenAI attributes, and token and dollar metrics', async () => {
    const rec = recordingTelemetry();
    restore = useTelemetry(rec.telemetry);
    const call: CallModel = async () => ({
      model: 'claude-sonnet-5-5-20260101',
      id: 'msg_01',
      content: [{ type: 'text', text: 'ANSWER TEXT' }],
      stopReason: 'end_turn',
      usage: { input: 100, cacheRead: 50, cacheWrite: 25, output: 40 },
      costUsd: 0.0123,
    });
    let now = 1_000;
    await tracedCallModel(
      async (r) => {
        now += 2_500;
        return call(r);
      },
      () => now,
    )(request);
    expect(rec.spans).toEqual([
      {
        name: 'chat claude-sonnet-5-5',
        kind: 'client',
        attributes: {
          [GEN_AI.operation]: 'chat',
          [GEN_AI.provider]: 'anthropic',
          [GEN_AI.system]: 'anthropic',
          [GEN_AI.requestModel]: 'claude-sonnet-5-5',
          [GEN_AI.responseModel]: 'claude-sonnet-5-5-20260101',
          [GEN_AI.responseId]: 'msg_01',
          [GEN_AI.finishReasons]: ['end_turn'],
          [GEN_AI.inputTokens]: 175,
          [GEN_AI.outputTokens]: 40,
          [GEN_AI.cacheReadTokens]: 50,
          [GEN_AI.cacheWriteTokens]: 25,
          'issueloop.cost_usd': 0.0123,
        },
      },
    ]);
    const tokenUsage = rec.metrics.filter((m) => m.name === GEN_AI.tokenUsage);
    expect(tokenUsage.map((m) => [m.attributes[GEN_AI.tokenType], m.value])).toEqual([
      ['input', 175],
      ['output', 40],
    ]);
    expect(rec.metrics).toContainEqual(expect.objectContaining({ name: 'issueloop.cost', value: 0.0123 }));
    // The duration, on the injected clock: 2.5 s.
    expect(rec.metrics).toContainEqual(
      expect.objectContaining({ name: GEN_AI.operationDuration, value: 2.5 }),
    );
    // Neither the prompt nor the answer is in any attribute.
    const recorded = JSON.stringify([rec.spans, rec.metrics]);
    expect(recorded).toContain('claude-sonnet-5-5');
    expect(recorded).not.toContain(PROMPT);
    expect(recorded).not.toContain('ANSWER TEXT');
  });

  it('a failed call keeps its span, with the error class, and rethrows the ModelError', async () => {
    const rec = recordingTelemetry();
    restore = useTelemetry(rec.telemetry);
    const overloaded = new ModelError(
      'claude-sonnet-5-5',
      classifyError(Object.assign(new Error('Overloaded'), { status: 529 }), { now: 0 }),
    );
    const call: CallModel = async () => {
      throw overloaded;
    };
    await expect(tracedCallModel(call, () => 0)(request)).rejects.toBe(overloaded);
    expect(rec.spans).toHaveLength(1);
    expect(rec.spans[0]?.attributes).toMatchObject({
      [GEN_AI.requestModel]: 'claude-sonnet-5-5',
      'issueloop.error_class': overloaded.classified.errorClass,
    });
    expect(rec.metrics).toContainEqual(
      expect.objectContaining({
        name: GEN_AI.operationDuration,
        attributes: expect.objectContaining({ 'error.type': overloaded.classified.errorClass }),
      }),
    );
  });
});
