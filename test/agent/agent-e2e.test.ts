import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/agent-loop.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { renderFirstMessage } from '../../src/agent/first-message.js';
import { DEFAULT_LIMITS } from '../../src/agent/limits.js';
import { readIdentityFiles } from '../../src/agent/project-files.js';
import { renderSystemPrompt } from '../../src/agent/system-prompt.js';
import { createToolset } from '../../src/agent/tools/toolset.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import { createAnthropicEmulator, reply, scriptQueue } from '../../src/emulators/anthropic/index.js';
import { createModelRuntime } from '../../src/engines/native/model-runtime.js';
import { createAnthropicModel } from '../../src/model/anthropic-model.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const TOKEN = 'ghp_e2eSecretToken0123456789abcdefghijkl';
let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('agent end to end: real tools in a worktree, the real adapter, the scripted API', () => {
  it('edits a file, runs a command without secrets, and ends; the API accepts every request', async () => {
    dir = await mkdtemp(join(tmpdir(), 'issueloop-e2e-'));
    await writeFile(join(dir, 'greet.js'), "export const greet = () => 'helo';\n");
    const emulator = createAnthropicEmulator({
      models: { 'claude-sonnet-5-5': { maxInputTokens: 150_000, maxTokens: 64_000 } },
      script: scriptQueue([
        reply.toolUse([
          { name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'greet.js' } },
        ]),
        reply.toolUse([
          {
            name: 'str_replace_based_edit_tool',
            input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
          },
          {
            name: 'bash',
            input: { command: 'cat greet.js; echo "token=$GITHUB_TOKEN"; env | grep -c TOKEN || true' },
          },
        ]),
        reply.text('Fixed the typo in greet.js.'),
      ]),
    });
    const redact = createRedactor([TOKEN]);
    const clock = new FakeClock();
    const log = createMemoryLog();
    const runtime = createModelRuntime({
      adapter: createAnthropicModel({
        apiKey: emulator.apiKey,
        baseURL: emulator.baseUrl,
        fetch: emulator.fetch,
      }),
      settings: {
        primary: 'claude-sonnet-5-5',
        fallbacks: [],
        diagnosisModel: 'claude-haiku-5-5',
        contextWindow: 200_000,
      },
      deps: { clock, random: createSeededRandom(5), log },
      redact,
    });
    const events: AgentEvent[] = [];
    const observer = (event: AgentEvent) => events.push(event);
    const session = await runtime.forIssue({ task: 'Issue #5: typo', observer });
    expect(session.contextWindow).toBe(150_000);
    const toolset = createToolset({
      root: dir,
      env: { PATH: process.env.PATH, GITHUB_TOKEN: TOKEN, HOME: dir },
    });
    const { text: system } = await renderSystemPrompt({
      repo: 'o/r',
      branch: 'issueloop/issue-5',
      maxModelCallsPerTurn: 25,
    });
    const agent = createAgent({
      callModel: session.callModel,
      model: 'claude-sonnet-5-5',
      system: async () => [system, await readIdentityFiles(dir, ['.issueloop/IDENTITY.md'])],
      tools: toolset,
      files: () => toolset.tracker.snapshot(),
      limits: DEFAULT_LIMITS,
      contextWindow: session.contextWindow,
      compactionThreshold: 0.8,
      maxOutputTokens: 4_000,
      clock,
      observer,
      log,
      redact,
    });

    const result = await agent.run(renderFirstMessage({ number: 5, title: 'typo', body: 'greet says helo' }));

    expect(result.stop).toBe('end_turn');
    expect(result.finalText).toBe('Fixed the typo in greet.js.');
    expect(await readFile(join(dir, 'greet.js'), 'utf8')).toBe("export const greet = () => 'hello';\n");
    expect(toolset.tracker.snapshot()).toEqual({ read: ['greet.js'], created: [], modified: ['greet.js'] });
    expect(result.totals).toMatchObject({ modelCalls: 3, toolCalls: 3, toolErrors: 0 });
    expect(result.totals.costUsd).toBeGreaterThan(0);
    const calls = emulator.requests.filter((r) => r.path === '/v1/messages');
    expect(calls.map((r) => r.status)).toEqual([200, 200, 200]);
    const last = JSON.stringify(calls[2]?.body);
    expect(last).toContain("export const greet = () => 'hello';");
    expect(last).toContain('token=\\n0\\n');
    expect(JSON.stringify(emulator.requests)).not.toContain(TOKEN);
    expect(JSON.stringify(calls[0]?.body)).toContain('Issue #5: typo');
    expect(events.map((e) => e.type)).toEqual([
      'model_call',
      'tool_call',
      'tool_result',
      'model_call',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'model_call',
      'session_end',
    ]);
  });
});
