import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askForJson, firstJsonObject } from '../../src/model/json-answer.js';
import type { CallModel, ModelRequest, ModelResponse } from '../../src/model/types.js';

const Schema = z.object({ choice: z.int(), reason: z.string() });

function answering(text: string | Error) {
  const requests: ModelRequest[] = [];
  const call: CallModel = async (request) => {
    requests.push(request);
    if (text instanceof Error) throw text;
    return {
      model: request.model,
      content: [
        { type: 'text', text },
        { type: 'tool_use', id: 't1', name: 'x', input: { choice: 9 } },
      ],
      stopReason: 'end_turn',
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0.001,
    } as ModelResponse;
  };
  return { call, requests };
}

const question = {
  model: 'claude-haiku-5-5',
  system: 'Answer only with JSON.',
  prompt: 'Which?',
  maxTokens: 200,
};

describe('askForJson: one tool-less call for a JSON object', () => {
  it('sends the question as one user message with no tools, and reads the first {…} of its text', async () => {
    const m = answering('Here: {"choice": 2, "reason": "smaller"} done');
    const asked = await askForJson(m.call, question, Schema);
    expect(asked.answer).toEqual({ choice: 2, reason: 'smaller' });
    expect(asked.response.costUsd).toBe(0.001);
    expect(m.requests).toEqual([
      {
        model: 'claude-haiku-5-5',
        system: ['Answer only with JSON.'],
        messages: [{ role: 'user', content: 'Which?' }],
        tools: [],
        maxTokens: 200,
      },
    ]);
  });

  it('an answer that is not JSON, or not of the schema, is no answer; the text is kept', async () => {
    expect((await askForJson(answering('I pick the second').call, question, Schema)).answer).toBeUndefined();
    const wrong = await askForJson(answering('{"choice": "two"}').call, question, Schema);
    expect(wrong.answer).toBeUndefined();
    expect(wrong.text).toBe('{"choice": "two"}');
  });

  it('a failed call throws what it threw', async () => {
    await expect(askForJson(answering(new Error('overloaded')).call, question, Schema)).rejects.toThrow(
      'overloaded',
    );
  });
});

describe('firstJsonObject', () => {
  it('parses from the first { to the last }, and gives undefined for anything else', () => {
    expect(firstJsonObject('x {"a": {"b": 1}} y')).toEqual({ a: { b: 1 } });
    expect(firstJsonObject('no braces')).toBeUndefined();
    expect(firstJsonObject('} backwards {')).toBeUndefined();
    expect(firstJsonObject('{"a": 1} and {"b": 2}')).toBeUndefined();
  });
});
