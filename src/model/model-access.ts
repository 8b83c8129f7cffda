import { classifyError } from '../core/classify/classify-error.js';
import { createRedactor } from '../core/redact.js';

export const DEFAULT_ANTHROPIC_BASE = 'https://api.anthropic.com';

export type ModelAccess =
  | { kind: 'ok'; base: string }
  | { kind: 'refused'; base: string; status: number; body: string }
  | { kind: 'answered'; base: string; status: number; body: string }
  | { kind: 'unreachable'; base: string; message: string };

/**
 * Whether the Anthropic API answers with this key, for free: `GET /v1/models?limit=1`. A refused key
 * (401/403) or an endpoint nothing answers can never work; any other answer may be passing.
 */
export async function probeModelApi(options: {
  apiKey: string;
  baseURL?: string | undefined;
  fetch?: typeof fetch | undefined;
  timeoutMs?: number;
}): Promise<ModelAccess> {
  const base = (options.baseURL || DEFAULT_ANTHROPIC_BASE).replace(/\/+$/, '');
  const redact = createRedactor([options.apiKey]);
  try {
    const response = await (options.fetch ?? globalThis.fetch)(`${base}/v1/models?limit=1`, {
      headers: { 'x-api-key': options.apiKey, 'anthropic-version': '2023-06-01' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    if (response.ok) return { kind: 'ok', base };
    const body = redact(await response.text().catch(() => '')).slice(0, 200);
    const status = response.status;
    return status === 401 || status === 403
      ? { kind: 'refused', base, status, body }
      : { kind: 'answered', base, status, body };
  } catch (err) {
    return { kind: 'unreachable', base, message: classifyError(err, { redact }).message };
  }
}
