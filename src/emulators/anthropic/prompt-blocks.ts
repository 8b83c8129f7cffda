import { createHash } from 'node:crypto';
import { canonicalJson, estimateTokens } from './tokens.js';
import type { CacheTtl, ParsedMessagesRequest } from './types.js';

/** One cacheable unit of a request: a tool definition, a system block, or a message content block. */
export interface PromptBlock {
  tokens: number;
  /** Identifies the whole prefix up to and including this block (model, kinds and contents). */
  prefixHash: string;
  /** Set when the block carries `cache_control`. */
  breakpoint?: CacheTtl;
}

function ttlOf(cacheControl: unknown): CacheTtl | undefined {
  if (cacheControl === null || typeof cacheControl !== 'object') return undefined;
  return (cacheControl as { ttl?: unknown }).ttl === '1h' ? '1h' : '5m';
}

/**
 * The request in the order the API caches it: tools, then system, then messages. A message's role is
 * part of each of its blocks' identity, so the same text said by the other side is another prefix;
 * the model is part of the seed, as caches are per model.
 */
export function flattenPrompt(request: ParsedMessagesRequest): PromptBlock[] {
  const items: Array<{ kind: string; block: unknown; cacheControl: unknown }> = [
    ...request.tools.map((tool) => ({ kind: 'tool', block: tool, cacheControl: tool.cache_control })),
    ...request.system.map((block) => ({ kind: 'system', block, cacheControl: block.cache_control })),
    ...request.messages.flatMap((message) =>
      message.content.map((block) => ({ kind: message.role, block, cacheControl: block.cache_control })),
    ),
  ];
  let hash = createHash('sha256').update(`model:${request.model}`).digest('hex');
  return items.map(({ kind, block, cacheControl }) => {
    hash = createHash('sha256')
      .update(`${hash}\n${kind}:${canonicalJson(block)}`)
      .digest('hex');
    const breakpoint = ttlOf(cacheControl);
    return { tokens: estimateTokens(block), prefixHash: hash, ...(breakpoint ? { breakpoint } : {}) };
  });
}

/** The request's whole input as the emulator counts it: what `count_tokens` answers. */
export function promptTokens(blocks: readonly PromptBlock[]): number {
  return blocks.reduce((sum, block) => sum + block.tokens, 0);
}
