import { type Diagnosis, diagnoseFailure } from '../../agent/diagnosis.js';
import type { AgentObserver } from '../../agent/events.js';
import type { ClassifiedError } from '../../core/classify/classify-error.js';
import type { Deps } from '../../core/deps.js';
import type { Redactor } from '../../core/redact.js';
import type { AnthropicModel } from '../../model/anthropic-model.js';
import { createFailoverChain, type FailoverChain } from '../../model/failover.js';
import { createReliableCall } from '../../model/reliable-call.js';
import { tracedCallModel } from '../../model/traced-call.js';
import type { CallModel } from '../../model/types.js';

export interface ModelSettings {
  primary: string;
  fallbacks: readonly string[];
  diagnosisModel: string;
  /** Used when `GET /v1/models/{id}` cannot tell. */
  contextWindow: number;
}

export interface SessionModel {
  /** Retries, backoff and failover around the adapter; events go to the session's observer. */
  callModel: CallModel;
  /** The smallest window of the chain: the conversation must fit whichever model answers. */
  contextWindow: number;
  /** The last diagnosis made for an `unknown` failure, whose hint the next attempt receives. */
  lastDiagnosis(): Diagnosis | undefined;
}

/**
 * One process-wide model: the adapter plus the failover chain, whose cooldowns outlive an issue.
 * `forIssue` resets the chain to the user's primary (seed 000 feature 4) and wires one issue's
 * observer and diagnosis.
 */
export function createModelRuntime(options: {
  adapter: AnthropicModel;
  settings: ModelSettings;
  deps: Pick<Deps, 'clock' | 'random' | 'log'>;
  redact: Redactor;
}): {
  chain: FailoverChain;
  /** One plain traced call, no retries or failover: for one-off cheap calls (the attempts' judge). */
  call: CallModel;
  forIssue(issue: { task: string; observer?: AgentObserver; signal?: AbortSignal }): Promise<SessionModel>;
} {
  const { adapter, settings, deps } = options;
  const chain = createFailoverChain({
    primary: settings.primary,
    fallbacks: settings.fallbacks,
    now: () => deps.clock.now(),
  });

  // Each attempt is its own model-call span: a failover shows as a second span with the other model.
  const callModel = tracedCallModel(adapter.callModel, () => deps.clock.now());

  const windowOf = async (model: string, signal?: AbortSignal) =>
    (await adapter.contextWindow(model, signal)) ?? settings.contextWindow;

  return {
    chain,
    call: callModel,
    async forIssue(issue) {
      chain.reset();
      const windows = await Promise.all(chain.models.map((model) => windowOf(model, issue.signal)));
      let diagnosis: Diagnosis | undefined;
      const diagnose = async (failure: ClassifiedError): Promise<boolean> => {
        const result = await diagnoseFailure({
          callModel,
          model: settings.diagnosisModel,
          task: issue.task,
          logTail: failure.message,
          redact: options.redact,
          ...(issue.signal ? { signal: issue.signal } : {}),
        });
        if (result.problem)
          deps.log.warn({ problem: result.problem }, 'diagnosis: no usable answer, giving up');
        diagnosis = result.diagnosis;
        return diagnosis?.retry ?? false;
      };
      const reliableCall = createReliableCall({
        call: callModel,
        chain,
        deps,
        diagnose,
        ...(issue.observer ? { onEvent: issue.observer } : {}),
      });
      return {
        callModel: reliableCall,
        contextWindow: Math.min(...windows),
        lastDiagnosis: () => diagnosis,
      };
    },
  };
}
