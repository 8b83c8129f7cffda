import type { AgentObserver } from '../../agent/events.js';
import { ZERO_USAGE } from '../../model/types.js';
import type { StreamEvent } from './stream-events.js';

/**
 * Claude Code's stream as the session's events, so the live line and the ledger follow a Claude Code
 * session as they follow the native loop: a `model_call` per API response, `tool_call` and
 * `tool_result` as they come. The CLI says what a call cost only when it ends, so each response is
 * told when the next one starts (at no cost) and the last one carries the call's cost: the events'
 * costs add up to what the session recorded.
 */
export function createLiveEvents(observer: AgentObserver | undefined, model: string) {
  let calls = 0;
  let turnCalls = 0;
  let pending: Extract<StreamEvent, { type: 'response' }> | undefined;
  const names = new Map<string, string>();
  const flush = (costUsd: number) => {
    const response = pending;
    pending = undefined;
    if (!response && costUsd === 0) return;
    const usage = response?.usage ?? ZERO_USAGE;
    observer?.({
      type: 'model_call',
      call: calls,
      turnCall: turnCalls,
      model: response?.model ? `claude-code:${response.model}` : model,
      stopReason: null,
      usage,
      costUsd,
      contextTokens: usage.input + usage.cacheWrite + usage.cacheRead + usage.output,
    });
  };
  return {
    event(event: StreamEvent) {
      if (event.type === 'response') {
        flush(0);
        calls += 1;
        turnCalls += 1;
        pending = event;
      } else if (event.type === 'tool_call') {
        names.set(event.id, event.name);
        observer?.({ type: 'tool_call', id: event.id, name: event.name, input: event.input });
      } else {
        const name = names.get(event.id) ?? 'tool';
        observer?.({ ...event, name, durationMs: 0 });
      }
    },
    /** The call ended: its last response is told with what the whole call cost. */
    callEnded(costUsd: number) {
      flush(costUsd);
      turnCalls = 0;
    },
  };
}
