import { IssueloopError, UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import { probeModelApi } from '../model/model-access.js';

/**
 * Before a run claims anything: the Anthropic API takes the key (a free `GET /v1/models`). A refused
 * key (exit 2) or an endpoint nothing answers (exit 1) would fail every session for a reason that is
 * not the issue's; it stops the run instead of being charged to the backlog. Any other answer is
 * logged and the run goes on (its calls retry such answers).
 */
export async function assertModelAccess(options: {
  apiKey: string;
  baseURL: string | undefined;
  fetch?: typeof fetch | undefined;
  log: Log;
}): Promise<void> {
  const access = await probeModelApi(options);
  switch (access.kind) {
    case 'ok':
      return;
    case 'answered':
      options.log.warn(
        { status: access.status },
        `the Anthropic API at ${access.base} answered HTTP ${access.status} to a key check; going on`,
      );
      return;
    case 'refused':
      throw new UsageError(
        `ANTHROPIC_API_KEY was refused by ${access.base} (HTTP ${access.status}): ${access.body}; fix: create a new key in the Anthropic Console under API keys, or check that it belongs to this endpoint`,
      );
    case 'unreachable':
      throw new IssueloopError(
        'model_unreachable',
        `cannot reach the Anthropic API at ${access.base}: ${access.message}; check ANTHROPIC_BASE_URL (unset it for https://api.anthropic.com) and the network`,
      );
  }
}
