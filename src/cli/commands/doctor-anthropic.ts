import { probeModelApi } from '../../model/model-access.js';
import type { Check } from './doctor-report.js';

/**
 * Whether the Anthropic API answers with this key (free): a refused key is a failure with the fix; an
 * endpoint that cannot be reached says where and why.
 */
export async function checkAnthropicApi(
  env: Readonly<Record<string, string | undefined>>,
  fetchImpl?: typeof fetch,
): Promise<Check | undefined> {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) return undefined;
  const access = await probeModelApi({ apiKey, baseURL: env.ANTHROPIC_BASE_URL, fetch: fetchImpl });
  const name = 'anthropic api';
  switch (access.kind) {
    case 'ok':
      return { name, status: 'ok', detail: `${access.base} accepted the key` };
    case 'refused':
      return {
        name,
        status: 'fail',
        detail: `${access.base} refused ANTHROPIC_API_KEY (HTTP ${access.status}): ${access.body}`,
        fix: 'create a new key in the Anthropic Console under API keys, or check that it belongs to this endpoint',
      };
    case 'answered':
      return {
        name,
        status: 'warn',
        detail: `${access.base} answered HTTP ${access.status}: ${access.body}`,
        fix: 'try again later; a run retries such answers with backoff',
      };
    case 'unreachable':
      return {
        name,
        status: 'fail',
        detail: `cannot reach ${access.base}: ${access.message}`,
        fix: 'check ANTHROPIC_BASE_URL (unset it for https://api.anthropic.com) and the network',
      };
  }
}
