import type { AgentEvent } from '../agent/events.js';

/** The ledger keeps counts and classes, not conversation content. */
export function eventFields(event: AgentEvent): Record<string, unknown> {
  switch (event.type) {
    case 'model_call':
      return { model: event.model, stopReason: event.stopReason, usage: event.usage, costUsd: event.costUsd };
    case 'session_end':
      return { stop: event.stop, reason: event.reason, totals: event.totals };
    default: {
      const { type: _type, ...rest } = event;
      return rest;
    }
  }
}
