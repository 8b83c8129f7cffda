import type { OpenRunInput } from '../run/open-run.js';
import type { ProgressDisplay } from '../run/progress-display.js';
import { createLogGroups, type LogGroups } from './log-groups.js';

/** The part of @actions/core the log needs: plain lines and log groups. */
export interface GroupOutputCore {
  info(message: string): void;
  startGroup(name: string): void;
  endGroup(): void;
}

export interface Logging {
  groups: LogGroups;
  titles: Map<number, string>;
  write(line: string): void;
}

/** Log lines (pino JSON) as readable lines, each issue's in its own log group. */
export function createLogging(core: GroupOutputCore): Logging {
  const groups = createLogGroups({
    write: (line) => core.info(line),
    startGroup: (name) => core.startGroup(name),
    endGroup: () => core.endGroup(),
  });
  return {
    groups,
    titles: new Map(),
    write(line) {
      const { issue, text } = readableLine(line);
      groups.line(issue, text);
    },
  };
}

const LEVELS: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** `warn  message  key=value …` from one pino JSON line (already redacted by the logger). */
export function readableLine(line: string): { issue?: number; text: string } {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { text: line.trimEnd() };
  }
  const level = LEVELS[entry.level as number] ?? 'info';
  const fields = Object.entries(entry)
    .filter(([key]) => !HIDDEN_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const text = [level.padEnd(5), String(entry.msg ?? ''), ...fields].join('  ').trimEnd();
  return typeof entry.issue === 'number' ? { issue: entry.issue, text } : { text };
}

/**
 * The run's progress in the job log: each issue's lines in a log group, and the CLI's progress lines
 * for a log that is not a terminal (every phase, a heartbeat while one lasts) once the run starts.
 */
export function progressWiring(logging: Logging, titles: Map<number, string>) {
  const { groups } = logging;
  let display: ProgressDisplay | undefined;
  const sink: NonNullable<OpenRunInput['progress']> = {
    started: (issue, title) => {
      titles.set(issue, title);
      groups.begin(issue, title);
    },
    phase: (issue, phase) => display?.phase(issue, phase),
    event: (issue, event) => display?.event(issue, event),
    done: (issue, outcome, bestOf) => {
      display?.done(issue, outcome, bestOf);
      groups.end(issue, `#${issue}: ${outcome}`);
    },
  };
  return {
    sink,
    show(next: ProgressDisplay) {
      display = next;
    },
    stop() {
      display?.stop();
      groups.close();
    },
  };
}
