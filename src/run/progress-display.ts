import type { AgentEvent } from '../agent/events.js';
import { humanDuration } from '../core/human-duration.js';
import type { Log } from '../core/logger.js';
import { forTerminal } from '../core/terminal-text.js';
import type { ProgressSink } from '../scheduler/progress.js';

interface Active {
  phase: string;
  calls: number;
  costUsd: number;
  started: number;
}

export interface ProgressDisplay extends ProgressSink {
  /** Where log lines go while the display runs: above the live lines, never through them. */
  writeLog(line: string): void;
  stop(): void;
}

const ERASE_DOWN = '\u001b[J';
const up = (n: number) => (n > 0 ? `\u001b[${n}A\r` : '\r');

/**
 * A run's progress. On a terminal: one live line per working issue (phase, model calls, $ so far,
 * elapsed), redrawn twice a second, with finished issues and log lines printed above it. Elsewhere:
 * log lines on every phase change and a heartbeat for any phase that lasts, so no phase is silent.
 */
export function createProgressDisplay(options: {
  isTTY: boolean;
  write: (text: string) => void;
  log: () => Log | undefined;
  now: () => number;
  heartbeatMs?: number;
  /** How an item is named: `#12` for an issue (the default), `task 3` for a task. */
  label?: (issue: number) => string;
  /** How a log line names it: `{ issue: 12 }` by default, `{ task: 3 }` for a task. */
  fields?: (issue: number) => Record<string, unknown>;
}): ProgressDisplay {
  const active = new Map<number, Active>();
  let drawn = 0;
  const name = options.label ?? ((issue: number) => `#${issue}`);
  const line = (issue: number, a: Active) =>
    forTerminal(
      `${name(issue)}  ${a.phase.padEnd(10)} ${String(a.calls).padStart(3)} model calls  $${a.costUsd.toFixed(2)}  ${humanDuration(options.now() - a.started)}`,
    );
  const clear = () => {
    if (drawn > 0) options.write(`${up(drawn)}${ERASE_DOWN}`);
    drawn = 0;
  };
  const draw = () => {
    if (!options.isTTY) return;
    clear();
    const lines = [...active.entries()].map(([issue, a]) => line(issue, a));
    if (lines.length > 0) options.write(`${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  const say = (issue: number, text: string) => {
    if (options.isTTY) {
      clear();
      // Written around the live lines' own escape sequences: only the text is cleaned.
      options.write(`${forTerminal(text)}\n`);
      draw();
    } else options.log()?.info(options.fields?.(issue) ?? { issue }, text);
  };
  const timer = setInterval(
    () => {
      if (options.isTTY) draw();
      else for (const [issue, a] of active) say(issue, `${line(issue, a)} (still ${a.phase})`);
    },
    options.isTTY ? 500 : (options.heartbeatMs ?? 60_000),
  );
  timer.unref();

  return {
    phase(issue, phase) {
      const known = active.get(issue);
      if (known) known.phase = phase;
      else active.set(issue, { phase, calls: 0, costUsd: 0, started: options.now() });
      // A terminal's live line shows the phase; a line per phase would scroll above it.
      if (options.isTTY) draw();
      else say(issue, `${name(issue)} ${phase}`);
    },
    event(issue, event: AgentEvent) {
      const a = active.get(issue);
      if (!a || event.type !== 'model_call') return;
      a.calls += 1;
      a.costUsd += event.costUsd;
    },
    done(issue, outcome) {
      const a = active.get(issue);
      active.delete(issue);
      const spent = a ? ` ($${a.costUsd.toFixed(2)}, ${humanDuration(options.now() - a.started)})` : '';
      say(issue, `${name(issue)} ${outcome}${spent}`);
    },
    writeLog(text) {
      if (!options.isTTY) {
        options.write(text);
        return;
      }
      clear();
      options.write(text.endsWith('\n') ? text : `${text}\n`);
      draw();
    },
    stop() {
      clearInterval(timer);
      if (options.isTTY) clear();
    },
  };
}
