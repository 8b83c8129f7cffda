import type { CacheUsage } from './prompt-cache.js';
import type { StopReason } from './types.js';

export type OutputBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface UsageJson {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  service_tier: 'standard';
}

/** The non-streaming `/v1/messages` answer. */
export interface MessageJson {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutputBlock[];
  stop_reason: StopReason | null;
  stop_sequence: null;
  usage: UsageJson;
}

export function usageJson(usage: CacheUsage, outputTokens: number): UsageJson {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: usage.write5m, ephemeral_1h_input_tokens: usage.write1h },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}
