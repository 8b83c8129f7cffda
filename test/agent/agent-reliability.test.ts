import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentOptions, createAgent } from '../../src/agent/agent-loop.js';
import { diagnoseFailure } from '../../src/agent/diagnosis.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { DEFAULT_LIMITS } from '../../src/agent/limits.js';
import { readIdentityFiles } from '../../src/agent/project-files.js';
import { classifyError } from '../../src/core/classify/classify-error.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createFailoverChain } from '../../src/model/failover.js';
import { createReliableCall } from '../../src/model/reliable-call.js';
import { ModelError, type ModelRequest } from '../../src/model/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { type Step, scriptedModel, text, toolCalls, usage } from '../helpers/fake-model.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const apiError = (
  model: string,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) => {
  const err = Object.assign(new Error(message), {
    status,
    headers,
    error: { type: 'error', error: { type, message } },
  });
  return new ModelError(model, classifyError(err, { now: Date.UTC(2026, 10, 21, 12) }), { cause: err });
};

const tools = {
  definitions: [],
  run: async () => ({ content: 'x'.repeat(8_000), isError: false }),
};

function reliableAgent(steps: Step[], overrides: Partial<AgentOptions> = {}, fallbacks = ['claude-b']) {
  const raw = scriptedModel(steps);
  const clock = new FakeClock();
  const log = createMemoryLog();
  const events: AgentEvent[] = [];
  const chain = createFailoverChain({ primary: 'claude-a', fallbacks, now: () => clock.now() });
  const callModel = createReliableCall({
    call: raw.call,
    chain,
    deps: { clock, random: createSeededRandom(1), log },
    onEvent: (event) => events.push(event),
  });
  const agent = createAgent({
    callModel,
    model: 'claude-a',
    system: async () => ['sys'],
    tools,
    limits: { ...DEFAULT_LIMITS },
    contextWindow: 100_000,
    compactionThreshold: 0.8,
    maxOutputTokens: 1_000,
    clock,
    observer: (event) => events.push(event),
    log,
    ...overrides,
  });
  return { agent, raw, events, log, chain, clock };
}

const models = (requests: ModelRequest[]) => requests.map((r) => r.model);

describe('failover per error class, through the reliable call', () => {
  it('rate_limit: backs off (retry-after honoured), then continues on the fallback with the same conversation', async () => {
    const { agent, raw, events, log, clock } = reliableAgent([
      apiError('claude-a', 429, 'rate_limit_error', 'slow down', { 'retry-after': '7' }),
      text('done on b'),
    ]);
    const result = await agent.run('Issue #3: x');
    expect(result.stop).toBe('end_turn');
    expect(models(raw.requests)).toEqual(['claude-a', 'claude-b']);
    expect(raw.requests[1]?.messages).toEqual(raw.requests[0]?.messages);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(7_000);
    expect(events.filter((e) => e.type === 'failover')).toEqual([
      expect.objectContaining({ from: 'claude-a', to: 'claude-b', errorClass: 'rate_limit' }),
    ]);
    expect(log.entries.map((e) => e.msg)).toContain('failover: switching from claude-a to claude-b');
  });

  it('overloaded: fails over', async () => {
    const { agent, raw } = reliableAgent([
      apiError('claude-a', 529, 'overloaded_error', 'Overloaded'),
      text('ok'),
    ]);
    expect((await agent.run('go')).stop).toBe('end_turn');
    expect(models(raw.requests)).toEqual(['claude-a', 'claude-b']);
  });

  it('timeout: retried once on the same model, then fails over', async () => {
    const timeout = () => apiError('claude-a', 504, 'timeout_error', 'Request timed out');
    const { agent, raw } = reliableAgent([timeout(), timeout(), text('ok')]);
    expect((await agent.run('go')).stop).toBe('end_turn');
    expect(models(raw.requests)).toEqual(['claude-a', 'claude-a', 'claude-b']);
  });

  it('server_error and network: retried on the same model, never a failover', async () => {
    const { agent, raw, events } = reliableAgent([
      apiError('claude-a', 500, 'api_error', 'Internal'),
      text('ok'),
    ]);
    expect((await agent.run('go')).stop).toBe('end_turn');
    expect(models(raw.requests)).toEqual(['claude-a', 'claude-a']);
    expect(events.some((e) => e.type === 'failover')).toBe(false);
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      expect.objectContaining({ errorClass: 'server_error' }),
    ]);
  });

  it('auth and billing: no retry, no failover; the session ends with the class', async () => {
    for (const [status, type, cls] of [
      [401, 'authentication_error', 'auth'],
      [402, 'billing_error', 'billing'],
    ] as const) {
      const { agent, raw } = reliableAgent([apiError('claude-a', status, type, 'no')]);
      const result = await agent.run('go');
      expect(result.stop).toBe('model_error');
      expect(result.error?.errorClass).toBe(cls);
      expect(models(raw.requests)).toEqual(['claude-a']);
    }
  });

  it('context overflow never fails over: it compacts on the same model', async () => {
    const { agent, raw, events } = reliableAgent([
      toolCalls([{ name: 'bash', input: {} }]),
      toolCalls([{ name: 'bash', input: {} }]),
      apiError(
        'claude-a',
        400,
        'invalid_request_error',
        'prompt is too long: 200082 tokens > 200000 maximum',
      ),
      text('## Decisions\nd\n## Current state\ns\n## Open task\nt'),
      text('ok'),
    ]);
    expect((await agent.run('go')).stop).toBe('end_turn');
    expect(new Set(models(raw.requests))).toEqual(new Set(['claude-a']));
    expect(events.some((e) => e.type === 'failover')).toBe(false);
  });

  it('the chain starts again at the primary for the next issue once its cooldown is over', async () => {
    const { chain, clock } = reliableAgent([]);
    chain.fail('claude-a', 'rate_limit');
    expect(chain.current()).toBe('claude-b');
    clock.advance(61_000);
    chain.reset();
    expect(chain.current()).toBe('claude-a');
  });
});

describe('compaction at the threshold', () => {
  it('compacts before the next call once a response reports 80 % of the window, and logs it', async () => {
    const big = usage(70_000, 15_000);
    const { agent, raw, events, log } = reliableAgent([
      toolCalls([{ name: 'bash', input: {} }]),
      toolCalls([{ name: 'bash', input: {} }], { usage: big }),
      text('## Decisions\nd\n## Current state\ns\n## Open task\nt'),
      text('finished'),
    ]);
    const result = await agent.run('Issue #9: y');
    expect(result.stop).toBe('end_turn');
    expect(raw.requests[2]?.system).toEqual(['You summarise coding sessions for handover.']);
    expect(events.find((e) => e.type === 'compaction')).toMatchObject({
      trigger: 'threshold',
      ok: true,
      beforeTokens: 85_000,
    });
    expect(log.entries.map((e) => e.msg)).toContain(
      'compaction: context at 85%, starting fresh session with summary',
    );
    expect(JSON.stringify(raw.requests[3]?.messages[0])).toContain('CONTEXT FROM PREVIOUS SESSION:');
  });

  it('below the threshold nothing is compacted', async () => {
    const { agent, events } = reliableAgent([
      toolCalls([{ name: 'bash', input: {} }], { usage: usage(79_000, 900) }),
      text('ok'),
    ]);
    await agent.run('go');
    expect(events.some((e) => e.type === 'compaction')).toBe(false);
  });
});

describe('diagnosis of unknown failures', () => {
  const unknown = () => new ModelError('claude-a', classifyError(new Error('weird gremlin')), {});

  it('an unknown failure gets one cheap diagnosis call; "retry" tries again', async () => {
    const cheap = scriptedModel([
      text('```json\n{"retry": true, "reason": "transient", "hint": "run npm ci first"}\n```'),
    ]);
    const raw = scriptedModel([unknown(), text('ok')]);
    const clock = new FakeClock();
    const hints: string[] = [];
    const callModel = createReliableCall({
      call: raw.call,
      chain: createFailoverChain({ primary: 'claude-a', fallbacks: [], now: () => clock.now() }),
      deps: { clock, random: createSeededRandom(2), log: createMemoryLog() },
      diagnose: async (failure) => {
        const result = await diagnoseFailure({
          callModel: cheap.call,
          model: 'claude-haiku-5-5',
          task: 'Issue #1: t',
          logTail: `${failure.message} with ghp_abcdefghijklmnopqrstuvwxyz0123456789`,
          redact: (s) => s.replace(/ghp_\w+/g, '[REDACTED]'),
        });
        if (result.diagnosis?.hint) hints.push(result.diagnosis.hint);
        return result.diagnosis?.retry ?? false;
      },
    });
    const response = await callModel({
      model: 'claude-a',
      system: [],
      messages: [{ role: 'user', content: 'x' }],
      tools: [],
      maxTokens: 10,
    });
    expect(response.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(cheap.requests[0]?.model).toBe('claude-haiku-5-5');
    const prompt = JSON.stringify(cheap.requests[0]?.messages);
    expect(prompt).toContain('weird gremlin');
    expect(prompt).not.toContain('ghp_');
    expect(hints).toEqual(['run npm ci first']);
  });

  it('"retry": false, or an answer that is not the JSON asked for, gives up', async () => {
    for (const answer of ['{"retry": false, "reason": "bad key", "hint": ""}', 'I think you should retry.']) {
      const cheap = scriptedModel([text(answer)]);
      const result = await diagnoseFailure({
        callModel: cheap.call,
        model: 'h',
        task: 't',
        logTail: 'boom',
        redact: (s) => s,
      });
      expect(result.diagnosis?.retry ?? false).toBe(false);
    }
    const garbage = await diagnoseFailure({
      callModel: scriptedModel([text('nope')]).call,
      model: 'h',
      task: 't',
      logTail: 'boom',
      redact: (s) => s,
    });
    expect(garbage.problem).toContain('not {"retry", "reason", "hint"} JSON');
  });

  it('a failed diagnosis call is reported, not thrown', async () => {
    const result = await diagnoseFailure({
      callModel: scriptedModel([new Error('down')]).call,
      model: 'h',
      task: 't',
      logTail: 'boom',
      redact: (s) => s,
    });
    expect(result).toEqual({ problem: 'diagnosis call failed: down' });
  });
});

describe('identity files', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('are re-read before every model call, so an edit takes effect at once', async () => {
    dir = await mkdtemp(join(tmpdir(), 'issueloop-identity-'));
    await mkdir(join(dir, '.issueloop'));
    await writeFile(join(dir, '.issueloop/IDENTITY.md'), 'You are Ada.');
    const editing = {
      definitions: [],
      run: async () => {
        await writeFile(join(dir, '.issueloop/IDENTITY.md'), 'You are Grace.');
        return { content: 'edited', isError: false };
      },
    };
    const { agent, raw } = reliableAgent([toolCalls([{ name: 'bash', input: {} }]), text('ok')], {
      system: async () => ['static', await readIdentityFiles(dir, ['.issueloop/IDENTITY.md', 'missing.md'])],
      tools: editing,
    });
    await agent.run('go');
    expect(raw.requests[0]?.system[1]).toContain('You are Ada.');
    expect(raw.requests[1]?.system[1]).toContain('You are Grace.');
    expect(raw.requests[1]?.system[1]).not.toContain('missing.md');
  });
});
