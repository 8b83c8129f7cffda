import { telemetry } from '../core/telemetry.js';
import { GEN_AI, ISSUELOOP } from '../core/telemetry-names.js';
import { type CallModel, ModelError, type ModelResponse } from './types.js';

const PROVIDER = 'anthropic';

/**
 * `call` with a span per model call, named `chat {model}` after the GenAI conventions, and the token
 * and dollar metrics. Wraps each attempt, so a failover shows as a second span with the other model.
 * Only names, ids and numbers are recorded: never the prompt or the answer.
 */
export function tracedCallModel(call: CallModel, now: () => number): CallModel {
  return (request, signal) =>
    telemetry().span(
      `chat ${request.model}`,
      {
        [GEN_AI.operation]: 'chat',
        [GEN_AI.provider]: PROVIDER,
        [GEN_AI.system]: PROVIDER,
        [GEN_AI.requestModel]: request.model,
      },
      async (span) => {
        const started = now();
        const duration = (more: Record<string, string>) =>
          telemetry().record(GEN_AI.operationDuration, (now() - started) / 1000, {
            [GEN_AI.operation]: 'chat',
            [GEN_AI.provider]: PROVIDER,
            [GEN_AI.requestModel]: request.model,
            ...more,
          });
        try {
          const response = await call(request, signal);
          span.set(responseAttributes(response));
          recordUsage(response);
          duration({ [GEN_AI.responseModel]: response.model });
          return response;
        } catch (err) {
          const errorClass = err instanceof ModelError ? err.classified.errorClass : 'error';
          span.set({ [ISSUELOOP.errorClass]: errorClass });
          duration({ [GEN_AI.errorType]: errorClass });
          throw err;
        }
      },
      { kind: 'client' },
    );
}

function responseAttributes(response: ModelResponse) {
  const { usage } = response;
  return {
    [GEN_AI.responseModel]: response.model,
    [GEN_AI.responseId]: response.id,
    [GEN_AI.finishReasons]: response.stopReason ? [response.stopReason] : undefined,
    // The conventions count cached tokens in the input.
    [GEN_AI.inputTokens]: usage.input + usage.cacheRead + usage.cacheWrite,
    [GEN_AI.outputTokens]: usage.output,
    [GEN_AI.cacheReadTokens]: usage.cacheRead,
    [GEN_AI.cacheWriteTokens]: usage.cacheWrite,
    [ISSUELOOP.costUsd]: response.costUsd,
  };
}

function recordUsage(response: ModelResponse): void {
  const t = telemetry();
  const model = {
    [GEN_AI.operation]: 'chat',
    [GEN_AI.provider]: PROVIDER,
    [GEN_AI.responseModel]: response.model,
  };
  const { usage } = response;
  t.record(GEN_AI.tokenUsage, usage.input + usage.cacheRead + usage.cacheWrite, {
    ...model,
    [GEN_AI.tokenType]: 'input',
  });
  t.record(GEN_AI.tokenUsage, usage.output, { ...model, [GEN_AI.tokenType]: 'output' });
  const byType = {
    input: usage.input,
    output: usage.output,
    cache_read: usage.cacheRead,
    cache_creation: usage.cacheWrite,
  };
  for (const [type, tokens] of Object.entries(byType)) {
    if (tokens > 0) t.count(ISSUELOOP.tokens, tokens, { ...model, [GEN_AI.tokenType]: type });
  }
  if (response.costUsd > 0) t.count(ISSUELOOP.dollars, response.costUsd, model);
}
