import {
  compactionLogLine,
  compactionPercent,
  shouldCompact,
} from '../../agent/compaction/should-compact.js';
import type { AgentObserver } from '../../agent/events.js';
import { COMPACTION_REQUEST, type SessionEngine } from '../engine.js';
import { buildSessionAgent } from './session-agent.js';

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
    run: (content) => agent.run(content),
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
