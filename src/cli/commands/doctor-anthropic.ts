import { classifyError } from '../../core/classify/classify-error.js';
import { createRedactor } from '../../core/redact.js';
import type { Check } from './doctor-report.js';

const DEFAULT_BASE = 'https://api.anthropic.com';

/**
 * Whether the Anthropic API answers with this key: `GET /v1/models?limit=1` costs nothing. A refused
 * key is a failure with the fix; an endpoint that cannot be reached says where and why.
 */
export async function checkAnthropicApi(
  env: Readonly<Record<string, string | undefined>>,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<Check | undefined> {
  const key = env.ANTHROPIC_API_KEY;
  if (!key) return undefined;
  const base = (env.ANTHROPIC_BASE_URL || DEFAULT_BASE).replace(/\/+$/, '');
  const redact = createRedactor([key]);
  try {
    const response = await fetchImpl(`${base}/v1/models?limit=1`, {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      signal: AbortSignal.timeout(10_000),
    });
    if (response.ok) return { name: 'anthropic api', status: 'ok', detail: `${base} accepted the key` };
    const body = redact(await response.text().catch(() => '')).slice(0, 200);
    if (response.status === 401 || response.status === 403) {
      return {
        name: 'anthropic api',
        status: 'fail',
        detail: `${base} refused ANTHROPIC_API_KEY (HTTP ${response.status}): ${body}`,
        fix: 'create a new key in the Anthropic Console under API keys, or check that it belongs to this endpoint',
      };
    }
    return {
      name: 'anthropic api',
      status: 'warn',
      detail: `${base} answered HTTP ${response.status}: ${body}`,
      fix: 'try again later; a run retries such answers with backoff',
    };
  } catch (err) {
    const failure = classifyError(err, { redact });
    return {
      name: 'anthropic api',
      status: 'fail',
      detail: `cannot reach ${base}: ${failure.message}`,
      fix: 'check ANTHROPIC_BASE_URL (unset it for https://api.anthropic.com) and the network',
    };
  }
}
