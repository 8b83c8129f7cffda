import { pino } from 'pino';
import type { Redactor } from './redact.js';
import { forTerminal, jsonTextForTerminal } from './terminal-text.js';

/**
 * The logging surface library code depends on. pino's Logger satisfies it; tests pass a recorder.
 * Child loggers carry `{run, round, issue, attempt}` so every line says where it comes from.
 */
export interface Log {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  child(bindings: Record<string, unknown>): Log;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface LoggerOptions {
  level: LogLevel;
  /** Readable, coloured lines (a TTY) instead of JSON lines. */
  pretty: boolean;
  /** Applied to every serialised line, so no field and no message can carry a secret. */
  redact: Redactor;
  /** Where finished lines go (stderr in the CLI: stdout is for command output). */
  write: (line: string) => void;
  /** Colours in pretty lines (off under NO_COLOR). */
  color?: boolean;
}

/**
 * Builds the process logger. Only entrypoints call this. Writes are synchronous so nothing is lost
 * when the process exits on an interrupt. pino-pretty is loaded only for a TTY, keeping start-up light.
 */
export async function createLogger(options: LoggerOptions): Promise<Log> {
  // A JSON line stays the same JSON; what pino leaves raw (C1 controls, DEL, bidi) is escaped.
  let format: (line: string) => string = jsonTextForTerminal;
  if (options.pretty) {
    const { prettyFactory } = await import('pino-pretty');
    const pretty = prettyFactory({
      colorize: options.color !== false,
      translateTime: 'HH:MM:ss',
      ignore: 'pid,hostname',
    });
    format = (line) => pretty(cleanedLine(line)) ?? forTerminal(line);
  }
  const destination = {
    write(line: string): void {
      options.write(options.redact(format(line)));
    },
  };
  const logger: Log = pino<never>({ level: options.level, base: undefined }, destination);
  return logger;
}

/**
 * The line with every string in it cleaned for the terminal (core/terminal-text.ts) before pino-pretty
 * prints its values raw: a check name or a model's text in a field must not move the cursor.
 */
function cleanedLine(line: string): string {
  try {
    return `${JSON.stringify(JSON.parse(line, (_key, value) => (typeof value === 'string' ? forTerminal(value) : value)))}\n`;
  } catch {
    return forTerminal(line);
  }
}
