import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/agent-loop.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { CLASS_POLICY, type ErrorClass } from '../../src/core/classify/policy.js';
import {
  fallsBackToNative,
  MIN_FALLBACK_MS,
  remainingBudget,
  type SessionEngine,
} from '../../src/engines/session-engine.js';

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
