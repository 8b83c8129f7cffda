import type { Log } from '../core/logger.js';

/**
 * A Log for one-shot commands that build no process logger (`issueloop claims`): warnings and errors
 * reach the person as plain stderr lines, the rest is dropped, and starting the command stays cheap.
 */
export function createWarningLog(write: (text: string) => void): Log {
  const line = (level: string) => (obj: unknown, msg?: string) => {
    const text = typeof obj === 'string' ? obj : (msg ?? '');
    write(`issueloop: ${level}: ${text}\n`);
  };
  const log: Log = {
    debug: () => undefined,
    info: () => undefined,
    warn: line('warning'),
    error: line('error'),
    child: () => log,
  };
  return log;
}
