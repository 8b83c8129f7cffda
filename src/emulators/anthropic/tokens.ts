/**
 * The emulator's token estimator. It only has to be deterministic and roughly proportional to size,
 * so that cache accounting, `count_tokens` and the context limit all agree with each other:
 *
 *   tokens(block) = ceil(UTF-8 bytes of canonicalJson(block) / 4)
 *
 * where canonicalJson is JSON with object keys sorted and the block's own top-level `cache_control`
 * left out (moving a breakpoint must not change what the prefix costs or how it hashes).
 */
export const BYTES_PER_TOKEN = 4;

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    out[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return out;
}

export function canonicalJson(block: unknown): string {
  if (block !== null && typeof block === 'object' && !Array.isArray(block) && 'cache_control' in block) {
    const { cache_control: _ignored, ...rest } = block as Record<string, unknown>;
    return JSON.stringify(sortKeys(rest));
  }
  return JSON.stringify(sortKeys(block)) ?? 'null';
}

export function estimateTokens(block: unknown): number {
  return Math.ceil(Buffer.byteLength(canonicalJson(block), 'utf8') / BYTES_PER_TOKEN);
}
