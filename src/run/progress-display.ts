import type { AgentEvent } from '../agent/events.js';
import { humanDuration } from '../core/human-duration.js';
import type { Log } from '../core/logger.js';
import { forTerminal } from '../core/terminal-text.js';
import { displayWidth, fitToWidth } from '../core/terminal-width.js';
import { bestOfText } from '../github/best-of-text.js';
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
  /** The terminal's width in columns, read at every redraw (undefined: unknown, lines are not cut). */
  columns?: () => number | undefined;
  /** Calls `listener` when the terminal is resized; returns how to stop. */
  onResize?: (listener: () => void) => () => void;
}): ProgressDisplay {
  const active = new Map<number, Active>();
  /** The widths of the live lines on screen, to know how many rows they take now. */
  let drawn: number[] = [];
  const name = options.label ?? ((issue: number) => `#${issue}`);
  const line = (issue: number, a: Active) =>
    forTerminal(
      `${name(issue)}  ${a.phase.padEnd(10)} ${String(a.calls).padStart(3)} model calls  $${a.costUsd.toFixed(2)}  ${humanDuration(options.now() - a.started)}`,
    );
  const width = () => {
    const columns = options.columns?.();
    return columns !== undefined && Number.isFinite(columns) && columns > 0 ? Math.floor(columns) : undefined;
  };
  const clear = () => {
    // A terminal made narrower may have rewrapped the lines drawn at the old width onto more rows.
    const columns = width() ?? Number.POSITIVE_INFINITY;
    const rows = drawn.reduce((sum, w) => sum + Math.max(1, Math.ceil(w / columns)), 0);
    if (rows > 0) options.write(`${up(rows)}${ERASE_DOWN}`);
    drawn = [];
  };
  const draw = () => {
    if (!options.isTTY) return;
    clear();
    const columns = width();
    const lines = [...active.entries()].map(([issue, a]) => {
      const text = line(issue, a);
      return columns === undefined ? text : fitToWidth(text, columns);
    });
    if (lines.length > 0) options.write(`${lines.join('\n')}\n`);
    drawn = lines.map(displayWidth);
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
  const stopResize = options.isTTY ? options.onResize?.(draw) : undefined;

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
    done(issue, outcome, bestOf) {
      const a = active.get(issue);
      active.delete(issue);
      const spent = a ? ` ($${a.costUsd.toFixed(2)}, ${humanDuration(options.now() - a.started)})` : '';
      const chosen = bestOf ? `; ${bestOfText(bestOf)}` : '';
      say(issue, `${name(issue)} ${outcome}${spent}${chosen}`);
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
      stopResize?.();
      if (options.isTTY) clear();
    },
  };
}
