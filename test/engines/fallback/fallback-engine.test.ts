import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../../src/agent/agent-loop.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { CLASS_POLICY, type ErrorClass } from '../../../src/core/classify/policy.js';
import type { SessionEngine } from '../../../src/engines/engine.js';
import {
  createFallbackEngine,
  type FallbackEvent,
  fallsBackToNative,
  MIN_FALLBACK_MS,
  remainingBudget,
} from '../../../src/engines/fallback/fallback-engine.js';
import { createMemoryLog } from '../../helpers/memory-log.js';

const config = ConfigSchema.parse({ engine: 'claude-code', session: { max_usd: 2, max_duration: '30m' } });
const claudeCode = { name: 'claude-code' } as SessionEngine;
const totals = {
  modelCalls: 3,
  toolCalls: 0,
  toolErrors: 0,
  compactions: 0,
  usage: { input: 0, cacheWrite: 0, cacheRead: 0, output: 0 },
  costUsd: 0.5,
  durationMs: 0,
};

function failed(errorClass: ErrorClass, costUsd = 0.5): AgentResult {
  const policy = CLASS_POLICY[errorClass];
  return {
    stop: 'model_error',
    reason: 'claude-code failed',
    error: {
      errorClass,
      action: policy.action,
      retryable: policy.retryable,
      failover: policy.failover,
      source: 'text',
      message: 'x',
    },
    finalText: '',
    totals: { ...totals, costUsd },
  };
}

describe('the hand-over from Claude Code to the native engine', () => {
  it('happens for the failures the native engine remedies, not for the others', () => {
    for (const errorClass of ['rate_limit', 'overloaded', 'billing', 'auth', 'timeout'] as const) {
      expect(fallsBackToNative(config, claudeCode, failed(errorClass), 0), errorClass).toBe(true);
    }
    for (const errorClass of ['context_overflow', 'invalid_request', 'network', 'unknown'] as const) {
      expect(fallsBackToNative(config, claudeCode, failed(errorClass), 0), errorClass).toBe(false);
    }
  });

  it('needs a minute and some money left, fallback: native, and a chain on Claude Code', () => {
    const thirtyMinutes = 30 * 60_000;
    expect(fallsBackToNative(config, claudeCode, failed('billing'), thirtyMinutes - MIN_FALLBACK_MS)).toBe(
      true,
    );
    expect(
      fallsBackToNative(config, claudeCode, failed('billing'), thirtyMinutes - MIN_FALLBACK_MS + 1),
    ).toBe(false);
    expect(fallsBackToNative(config, claudeCode, failed('billing', 2), 0)).toBe(false);
    const none = ConfigSchema.parse({ engine: 'claude-code', claude_code: { fallback: 'none' } });
    expect(fallsBackToNative(none, claudeCode, failed('billing'), 0)).toBe(false);
    expect(fallsBackToNative(config, { name: 'native' } as SessionEngine, failed('billing'), 0)).toBe(false);
  });

  it('leaves the native engine what is left of the time, dollars and model calls', () => {
    const left = remainingBudget(config, totals, 10 * 60_000);
    expect(left.session).toMatchObject({ max_duration: 20 * 60_000, max_usd: 1.5, max_model_calls: 197 });
    expect(config.session.max_usd).toBe(2);
  });
});

/** An engine that answers from a script, recording what it was sent. */
function scriptedEngine(name: 'native' | 'claude-code', answers: AgentResult[], sessionId?: string) {
  const sent: string[] = [];
  const engine: SessionEngine = {
    name,
    async run(content) {
      sent.push(content);
      const next = answers.shift();
      if (!next) throw new Error(`${name}: no answer scripted for ${content}`);
      return next;
    },
    messages: () => sent.map((content) => ({ role: 'user' as const, content })),
    model: () => `${name}-model`,
    hint: () => undefined,
    sessionId: () => sessionId,
    async carry() {
      return { carry: { engine: name, tokens: 1 }, result: ok(0.01) };
    },
  };
  return { engine, sent };
}

function ok(costUsd: number): AgentResult {
  return {
    stop: 'end_turn',
    reason: 'done',
    finalText: 'done',
    totals: { ...totals, costUsd, modelCalls: 2 },
  };
}

describe('createFallbackEngine', () => {
  const setup = (primaryAnswers: AgentResult[], nativeAnswers: AgentResult[]) => {
    const primary = scriptedEngine('claude-code', primaryAnswers, 'sess-1');
    const native = scriptedEngine('native', nativeAnswers);
    const spentSeen: number[] = [];
    const seeds: unknown[] = [];
    const fallbacks: string[] = [];
    const events: FallbackEvent[] = [];
    const engine = createFallbackEngine({
      primary: primary.engine,
      config,
      elapsedMs: () => 0,
      fallback: async (spent) => {
        spentSeen.push(spent.costUsd);
        return native.engine;
      },
      seed: async (input) => {
        seeds.push(input);
        return `SEEDED ${input.task}`;
      },
      log: createMemoryLog(),
      onFallback: (failed) => {
        fallbacks.push(failed.failureClass);
        events.push(failed);
      },
    });
    return { engine, primary, native, spentSeen, seeds, fallbacks, events };
  };

  it('hands a billing failure of the first turn to the native engine, seeded, counting what both spent', async () => {
    const { engine, native, spentSeen, seeds, fallbacks, events } = setup(
      [failed('billing', 0.5)],
      [ok(0.25)],
    );
    expect(engine.name).toBe('claude-code');
    const result = await engine.run('Issue #1: fix it');
    expect(result.stop).toBe('end_turn');
    expect(result.totals.costUsd).toBeCloseTo(0.75);
    expect(result.totals.modelCalls).toBe(5);
    expect(spentSeen).toEqual([0.5]);
    expect(seeds).toEqual([{ failureClass: 'billing', task: 'Issue #1: fix it', sessionId: 'sess-1' }]);
    expect(native.sent).toEqual(['SEEDED Issue #1: fix it']);
    expect(fallbacks).toEqual(['billing']);
    // What Claude Code left, for the session to keep should the native engine never answer.
    expect(events[0]?.result.totals.costUsd).toBe(0.5);
    expect(events[0]?.model).toBe('claude-code-model');
    expect(events[0]?.messages).toEqual([{ role: 'user', content: 'Issue #1: fix it' }]);
    expect(engine.name).toBe('native');
    expect(engine.model()).toBe('native-model');
    expect(engine.sessionId?.()).toBeUndefined();
    // A later turn (a verify fix-up) and the carry still count the primary's spend.
    native.engine.run = async () => ok(0.3);
    expect((await engine.run('fix the tests')).totals.costUsd).toBeCloseTo(0.8);
    expect((await engine.carry()).result?.totals.costUsd).toBeCloseTo(0.51);
  });

  it('keeps the primary for a failure the native engine does not remedy, and after the first turn', async () => {
    const invalid = setup([failed('invalid_request')], []);
    expect((await invalid.engine.run('task')).stop).toBe('model_error');
    expect(invalid.fallbacks).toEqual([]);
    expect(invalid.engine.sessionId?.()).toBe('sess-1');

    const later = setup([ok(0.1), failed('billing')], []);
    await later.engine.run('task');
    const second = await later.engine.run('verify failed: fix it');
    expect(second.stop).toBe('model_error');
    expect(later.fallbacks).toEqual([]);
    expect(second.totals.costUsd).toBe(0.5);
  });
});
