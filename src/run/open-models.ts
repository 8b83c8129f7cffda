import type { Config } from '../config/schema.js';
import type { Deps } from '../core/deps.js';
import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { createModelRuntime } from '../engines/native/model-runtime.js';
import { createAnthropicModel } from '../model/anthropic-model.js';
import { variableTextProblem } from './env-token.js';
import { assertModelAccess } from './model-preflight.js';
import type { Env } from './secrets.js';

/** The model side of a run: the Anthropic key, checked, and the model runtime with failover. */

/** What opening the models needs of a run's input (`OpenRunInput`). */
interface ModelsInput {
  config: Config;
  deps: Deps;
  redact: Redactor;
  env: Env;
  fetch?: typeof fetch;
}

export function requireAnthropicKey(env: Env): string {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new UsageError('no Anthropic API key: export ANTHROPIC_API_KEY');
  const problem = variableTextProblem('ANTHROPIC_API_KEY', apiKey);
  if (problem) throw new UsageError(problem);
  return apiKey;
}

/**
 * The model runtime of a run, once the Anthropic API has taken the key (`check`: a refused key or a
 * dead endpoint stops the run before anything is claimed; see model-preflight.ts).
 */
export async function openCheckedModels(input: ModelsInput, apiKey: string, options: { check: boolean }) {
  const baseURL = input.env.ANTHROPIC_BASE_URL || undefined;
  if (options.check) {
    const fetch = input.fetch ?? input.deps.fetch;
    await assertModelAccess({ apiKey, baseURL, fetch, log: input.deps.log });
  }
  return openModels(input, apiKey, baseURL);
}

/** The model runtime (Anthropic Messages with failover), shared by issue and task runs. */
export function openModels(input: Omit<ModelsInput, 'env'>, apiKey: string, baseURL: string | undefined) {
  const { config, deps, redact } = input;
  return createModelRuntime({
    adapter: createAnthropicModel({
      apiKey,
      baseURL,
      prices: config.model.prices,
      redact,
      ...(input.fetch ? { fetch: input.fetch } : {}),
    }),
    settings: {
      primary: config.model.primary,
      fallbacks: config.model.fallbacks,
      diagnosisModel: config.model.diagnosis_model,
      contextWindow: config.model.context_window,
    },
    deps,
    redact,
  });
}
