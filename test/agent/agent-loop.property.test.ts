import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/agent-loop.js';
import { pairingProblems } from '../../src/agent/compaction/index.js';
import { DEFAULT_LIMITS } from '../../src/agent/limits.js';
import { classifyError } from '../../src/core/classify/classify-error.js';
import { ModelError, type ModelResponse } from '../../src/model/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { respond, type Step, scriptedModel, text, toolCalls, usage } from '../helpers/fake-model.js';

type Kind =
  | { kind: 'tools'; n: number; big: boolean }
  | { kind: 'end' }
  | { kind: 'cut_text' }
  | { kind: 'cut_tool' }
  | { kind: 'pause' }
  | { kind: 'refusal' }
  | { kind: 'window_exceeded' }
  | { kind: 'too_long' }
  | { kind: 'near_full' };

const kinds: fc.Arbitrary<Kind> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      n: fc.integer({ min: 1, max: 4 }),
      big: fc.boolean(),
    }),
  },
  fc.constant({ kind: 'end' as const }),
  fc.constant({ kind: 'cut_text' as const }),
  fc.constant({ kind: 'cut_tool' as const }),
  fc.constant({ kind: 'pause' as const }),
  fc.constant({ kind: 'refusal' as const }),
  fc.constant({ kind: 'window_exceeded' as const }),
  fc.constant({ kind: 'too_long' as const }),
  fc.constant({ kind: 'near_full' as const }),
);

const SUMMARY = text('## Decisions\nd\n## Current state\ns\n## Open task\nt');

function toStep(k: Kind): Step {
  switch (k.kind) {
    case 'tools':
      return toolCalls(
        Array.from({ length: k.n }, (_, i) => ({
          name: 'bash',
          input: { i, pad: k.big ? 'p'.repeat(4_000) : '' },
        })),
      );
    case 'end':
      return text('done');
    case 'cut_text':
      return respond([{ type: 'text', text: 'half' }], 'max_tokens');
    case 'cut_tool':
      return respond(
        [{ type: 'tool_use', id: `toolu_cut${Math.random()}`, name: 'bash', input: {} }],
        'max_tokens',
      );
    case 'pause':
      return respond([{ type: 'text', text: 'pausing' }], 'pause_turn');
    case 'refusal':
      return respond([{ type: 'text', text: 'no' }], 'refusal');
    case 'window_exceeded':
      return respond([{ type: 'text', text: 'cut by window' }], 'model_context_window_exceeded');
    case 'too_long': {
      const err = Object.assign(new Error('prompt is too long'), {
        status: 400,
        error: {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'prompt is too long: 9 tokens > 8 maximum' },
        },
      });
      return new ModelError('m', classifyError(err), { cause: err });
    }
    case 'near_full':
      return toolCalls([{ name: 'bash', input: { pad: 'q'.repeat(2_000) } }], { usage: usage(95_000) });
  }
}

describe('agent loop: the tool pairing invariant holds over random conversations', () => {
  it('every request sent, and the final conversation, pair each tool_use with its tool_result', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(kinds, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 3 }),
        async (script, abortAfterTools, turns) => {
          // The summariser answers whenever it is asked; every other request takes the next scripted step.
          const queue = script.map(toStep);
          const steps: Step[] = Array.from({ length: 200 }, () => (request) => {
            if (request.system[0]?.includes('summarise')) return SUMMARY as ModelResponse;
            const next = queue.shift() ?? text('done');
            return typeof next === 'function' ? next(request, 0) : next;
          });
          const model = scriptedModel(steps);
          const controller = new AbortController();
          let toolRuns = 0;
          const agent = createAgent({
            callModel: model.call,
            model: 'm',
            system: async () => ['s'],
            tools: {
              definitions: [],
              run: async () => {
                toolRuns++;
                if (toolRuns === abortAfterTools) controller.abort();
                return { content: 'r'.repeat(3_000), isError: toolRuns % 5 === 0 };
              },
            },
            limits: { ...DEFAULT_LIMITS, maxModelCallsPerTurn: 15 },
            contextWindow: 100_000,
            compactionThreshold: 0.8,
            maxOutputTokens: 1_000,
            clock: new FakeClock(),
            signal: controller.signal,
          });
          for (let t = 0; t < turns; t++) {
            const result = await agent.run(`turn ${t}`);
            if (result.stop !== 'end_turn') break;
          }
          for (const request of model.requests) expect(pairingProblems(request.messages)).toEqual([]);
          expect(pairingProblems(agent.messages())).toEqual([]);
        },
      ),
      { numRuns: 200, seed: 20261121 },
    );
  });
});
