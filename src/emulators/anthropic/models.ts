import type { ModelSpec } from './types.js';

export const DEFAULT_MODELS: Readonly<Record<string, ModelSpec>> = Object.freeze({
  'claude-sonnet-5-5': { maxInputTokens: 200_000, maxTokens: 64_000 },
  'claude-haiku-5-5': { maxInputTokens: 200_000, maxTokens: 64_000 },
  'claude-opus-5': { maxInputTokens: 200_000, maxTokens: 64_000 },
});

/** A fixed date, so that snapshots of `models.retrieve` stay stable. */
const CREATED_AT = '2026-01-15T00:00:00Z';
const LINES = ['haiku', 'sonnet', 'opus'] as const;

/** `claude-sonnet-5-5` → `Claude Sonnet 5.5`, the API's naming pattern. */
function displayName(id: string): string {
  const words = id.split('-');
  const name = words.filter((w) => !/^\d+$/.test(w)).map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  const version = words.filter((w) => /^\d+$/.test(w) && w.length < 8).join('.');
  return version ? `${name.join(' ')} ${version}` : name.join(' ');
}

/** The `ModelInfo` shape of `GET /v1/models/{id}`; capabilities are not emulated. */
export function modelInfo(id: string, spec: ModelSpec): Record<string, unknown> {
  return {
    type: 'model',
    id,
    display_name: displayName(id),
    created_at: CREATED_AT,
    max_input_tokens: spec.maxInputTokens,
    max_tokens: spec.maxTokens,
    capabilities: null,
    deprecated_at: null,
    retires_at: null,
    lifecycle: 'active',
    line: LINES.find((line) => id.includes(line)) ?? null,
  };
}

/** `GET /v1/models`: one page holding every model, in the order they were configured. */
export function modelList(models: Record<string, ModelSpec>): Record<string, unknown> {
  const data = Object.entries(models).map(([id, spec]) => modelInfo(id, spec));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
