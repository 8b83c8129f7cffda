import type { Deps } from '../../src/core/deps.js';
import type { Redactor } from '../../src/core/redact.js';
import type { AnthropicEmulator } from '../../src/emulators/anthropic/index.js';
import { createModelRuntime } from '../../src/engines/native/model-runtime.js';
import { createAnthropicModel } from '../../src/model/anthropic-model.js';

/** The model runtime a session uses, talking in-process to the scripted Anthropic server. */
export function emulatedModels(
  anthropic: AnthropicEmulator,
  deps: Pick<Deps, 'clock' | 'random' | 'log'>,
  redact: Redactor,
): ReturnType<typeof createModelRuntime> {
  return createModelRuntime({
    adapter: createAnthropicModel({
      apiKey: anthropic.apiKey,
      baseURL: anthropic.baseUrl,
      fetch: anthropic.fetch,
    }),
    settings: {
      primary: 'claude-sonnet-5-5',
      fallbacks: [],
      diagnosisModel: 'claude-haiku-5-5',
      contextWindow: 200_000,
    },
    deps,
    redact,
  });
}
