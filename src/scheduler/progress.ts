import type { AgentEvent } from '../agent/events.js';
import type { BestOfSummary, SessionPhase } from '../session/session-report.js';

/**
 * What a run tells whoever watches it, per issue: the phase it entered, every agent event, and how
 * it ended. The CLI renders it as live lines on a terminal or as log lines otherwise.
 */
export interface ProgressSink {
  /** A session is about to start on a claimed issue. */
  started?(issue: number, title: string): void;
  phase(issue: number, phase: SessionPhase | 'claimed'): void;
  event(issue: number, event: AgentEvent): void;
  /** `bestOf`: the claim ran best-of-N (which attempt was chosen, or that none was). */
  done(issue: number, outcome: string, bestOf?: BestOfSummary): void;
}
