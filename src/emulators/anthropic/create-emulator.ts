import { createHandler } from './handler.js';
import { answerCountTokens, createMessagesAnswerer, type MessagesDeps } from './messages-endpoint.js';
import { DEFAULT_MODELS } from './models.js';
import { createPromptCache, DEFAULT_MIN_CACHEABLE_TOKENS } from './prompt-cache.js';
import { echoScript } from './script.js';
import { createEmulatorFetch, listenOnLoopback } from './transport.js';
import type { AnthropicEmulator, AnthropicEmulatorOptions, AnthropicRequestLog } from './types.js';

export const DEFAULT_API_KEY = 'sk-ant-api03-emulator';
export const DEFAULT_BASE_URL = 'https://api.anthropic.test';

/**
 * An in-process Anthropic Messages API whose answers come from a script: the API's validation,
 * tool-pairing rule, error bodies, SSE framing and prompt-cache accounting, so an agent loop can be
 * driven end to end without a real model. Deterministic given `now` and the script.
 */
export function createAnthropicEmulator(options: AnthropicEmulatorOptions = {}): AnthropicEmulator {
  const base = new URL(options.baseUrl ?? DEFAULT_BASE_URL);
  const basePath = base.pathname.replace(/\/+$/, '');
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const models = { ...(options.models ?? DEFAULT_MODELS) };
  const cache = createPromptCache(
    options.now ?? Date.now,
    options.minCacheableTokens ?? DEFAULT_MIN_CACHEABLE_TOKENS,
  );
  const counters = { msg: 0, toolu: 0 };
  const deps: MessagesDeps = {
    models,
    script: options.script ?? echoScript,
    cache,
    nextId(kind) {
      counters[kind] += 1;
      return kind === 'msg'
        ? `msg_emu${counters.msg.toString().padStart(20, '0')}`
        : `toolu_${counters.toolu}`;
    },
  };
  const log: AnthropicRequestLog[] = [];
  const handle = createHandler({
    apiKey,
    basePath,
    models,
    log,
    messages: createMessagesAnswerer(deps),
    countTokens: (body) => answerCountTokens(body, deps),
  });

  return {
    baseUrl: `${base.origin}${basePath}`,
    apiKey,
    fetch: createEmulatorFetch(handle, base),
    listen: () => listenOnLoopback(handle, basePath),
    requests: log,
    cacheStats: () => cache.stats(),
    resetCache: () => cache.reset(),
  };
}
