import type { Log } from '../../src/core/logger.js';

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string | undefined;
  fields: Record<string, unknown>;
}

/** A Log that records entries (children share the record and add their bindings). */
export function createMemoryLog(
  entries: LogEntry[] = [],
  bindings: Record<string, unknown> = {},
): Log & { entries: LogEntry[] } {
  const write =
    (level: LogEntry['level']) =>
    (obj: unknown, msg?: string): void => {
      if (typeof obj === 'string') entries.push({ level, msg: obj, fields: { ...bindings } });
      else entries.push({ level, msg, fields: { ...bindings, ...(obj as Record<string, unknown>) } });
    };
  return {
    entries,
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => createMemoryLog(entries, { ...bindings, ...more }),
  };
}
