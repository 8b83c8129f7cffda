import { afterEach, describe, expect, it } from 'vitest';
import { runToolBatch, type ToolRunner } from '../../src/agent/tool-batch.js';
import { useTelemetry } from '../../src/core/telemetry.js';
import { GEN_AI } from '../../src/core/telemetry-names.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

let restore: (() => void) | undefined;
afterEach(() => restore?.());

const runner: ToolRunner = {
  run: async (name) =>
    name === 'bash' ? { content: 'ok', isError: false } : { content: `no tool ${name}`, isError: true },
};

describe('tool calls in telemetry', () => {
  it('regression: a tool name the model made up (file text, its instructions) never reaches a span name or attribute', async () => {
    const rec = recordingTelemetry();
    restore = useTelemetry(rec.telemetry);
    const leaked = 'the deploy key is in config/prod.env: rotate it';
    await runToolBatch(
      [
        { type: 'tool_use', id: 'toolu_01', name: 'bash', input: { command: 'ls' } },
        { type: 'tool_use', id: `id with ${leaked}`, name: leaked, input: {} },
      ],
      runner,
      { signal: new AbortController().signal, now: () => 0 },
    );

    expect(rec.spans.map((s) => s.name)).toEqual(['execute_tool bash', 'execute_tool unknown']);
    expect(rec.spans[0]?.attributes).toMatchObject({
      [GEN_AI.toolName]: 'bash',
      [GEN_AI.toolCallId]: 'toolu_01',
    });
    expect(rec.spans[1]?.attributes).toMatchObject({
      [GEN_AI.toolName]: 'unknown',
      [GEN_AI.toolCallId]: 'unknown',
    });
    expect(JSON.stringify(rec.spans)).not.toContain('deploy key');
  });
});
