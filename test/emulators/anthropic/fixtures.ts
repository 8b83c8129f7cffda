import Anthropic from '@anthropic-ai/sdk';
import { afterEach } from 'vitest';
import {
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
  createAnthropicEmulator,
  type ListeningEmulator,
} from '../../../src/emulators/anthropic/index.js';

export const MODEL = 'claude-sonnet-5-5';
export const START = Date.UTC(2026, 10, 21, 12, 0, 0);

export interface Clocked {
  emulator: AnthropicEmulator;
  client: Anthropic;
  advance(ms: number): void;
}

/** An emulator on a manual clock, with an SDK client that talks to it in-process. */
export function clocked(options: AnthropicEmulatorOptions = {}): Clocked {
  let now = START;
  const emulator = createAnthropicEmulator({ now: () => now, ...options });
  return {
    emulator,
    client: clientFor(emulator),
    advance: (ms) => {
      now += ms;
    },
  };
}

export function clientFor(emulator: AnthropicEmulator, overrides: { apiKey?: string } = {}): Anthropic {
  return new Anthropic({
    apiKey: overrides.apiKey ?? emulator.apiKey,
    baseURL: emulator.baseUrl,
    maxRetries: 0,
    fetch: emulator.fetch,
  });
}

/** Rejection value of a promise that must reject. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Tool definitions large enough (well over 1024 estimated tokens) to be worth caching. */
export function bigTools(): Anthropic.Tool[] {
  return ['read_file', 'write_file', 'run_tests'].map((name, i) => ({
    name,
    description: `${name}: ${'Detailed guidance for the agent about this tool. '.repeat(40)}`,
    input_schema: { type: 'object', properties: { path: { type: 'string', description: `arg ${i}` } } },
  }));
}

export const SYSTEM = `You are issueloop's coding agent. ${'Follow the repository conventions carefully. '.repeat(20)}`;

/** Listeners a test opens; every one is closed after each test. */
export function useListeners(): ListeningEmulator[] {
  const open: ListeningEmulator[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return open;
}
