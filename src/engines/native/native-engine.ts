import {
  compactionLogLine,
  compactionPercent,
  shouldCompact,
} from '../../agent/compaction/should-compact.js';
import type { AgentObserver, AgentTotals } from '../../agent/events.js';
import type { Config } from '../../config/schema.js';
import { humanDuration } from '../../core/human-duration.js';
import { COMPACTION_REQUEST, type EngineResult, type SessionEngine } from '../engine.js';
import { buildSessionAgent } from './session-agent.js';

/**
 * What the harness says when a turn reaches `session.max_model_calls_per_turn` (seed 002's per-turn
 * cap): an autonomous session's first message is its only turn, so the work goes on in a new turn,
 * told what it has used and what is left, until a session limit ends it.
 */
export function nextTurnMessage(totals: AgentTotals, config: Config): string {
  const { session } = config;
  const usd = Math.max(session.max_usd - totals.costUsd, 0);
  const time = Math.max(session.max_duration - totals.durationMs, 0);
  return (
    `TURN LIMIT: this turn reached ${session.max_model_calls_per_turn} model calls. ` +
    `The session has used ${totals.modelCalls} of its ${session.max_model_calls} model calls; ` +
    `$${usd.toFixed(2)} and ${humanDuration(time)} remain. ` +
    'Continue the task from where it stands, and finish it within what is left.'
  );
}

/** A turn cut at the per-turn cap goes on in a new turn; every other stop ends the run. */
async function runTurns(
  run: (content: string) => Promise<EngineResult>,
  content: string,
  config: Config,
): Promise<EngineResult> {
  let result = await run(content);
  while (result.stop === 'turn_call_limit') result = await run(nextTurnMessage(result.totals, config));
  return result;
}

/**
 * issueloop's own agent loop as a session engine. A task group's conversation continues from the
 * previous task's messages (`initial`); past the threshold it is summarised for the next task.
 */
export async function createNativeEngine(
  options: Parameters<typeof buildSessionAgent>[0] & { currentModel: () => string },
): Promise<SessionEngine> {
  let contextTokens = 0;
  const observer: AgentObserver = (event) => {
    if (event.type === 'model_call') contextTokens = event.contextTokens + event.usage.output;
    options.observer(event);
  };
  const session = await buildSessionAgent({ ...options, observer });
  for (const warning of session.warnings) options.log.warn({ warning }, warning);
  const { agent } = session;
  return {
    name: 'native',
    run: (content) => runTurns((text) => agent.run(text), content, options.config),
    messages: () => agent.messages(),
    model: options.currentModel,
    hint: () => session.model.lastDiagnosis()?.hint || undefined,
    async carry() {
      const window = session.model.contextWindow;
      if (!shouldCompact(contextTokens, window, options.config.model.compaction_threshold)) {
        return { carry: { engine: 'native', tokens: contextTokens, messages: agent.messages() } };
      }
      const result = await agent.run(COMPACTION_REQUEST);
      const summary = result.stop === 'end_turn' ? result.finalText.trim() : '';
      const percent = compactionPercent(contextTokens, window);
      if (summary) options.log.info({ percent }, compactionLogLine(contextTokens, window));
      else
        options.log.warn(
          { percent, stop: result.stop },
          `compaction: context at ${percent}%, the summary failed; the next task starts fresh without one`,
        );
      return { carry: { engine: 'native', tokens: 0, ...(summary ? { summary } : {}) }, result };
    },
  };
}
