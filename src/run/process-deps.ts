import { systemClock } from '../core/clock.js';
import type { Deps } from '../core/deps.js';
import { createLogger, type LogLevel } from '../core/logger.js';
import { createRandom } from '../core/random.js';
import { createRedactor } from '../core/redact.js';
import { type Env, secretsFromEnv } from './secrets.js';

export interface ProcessDepsOptions {
  env: Env;
  level: LogLevel;
  /** Readable log lines for a person at a terminal; JSON lines for machines. */
  isTTY: boolean;
  /** Where log lines go: stderr, so stdout stays for command output. */
  write: (line: string) => void;
  /** Further environment variables whose values are secrets (config `redact_env`). */
  redactEnv?: readonly string[];
  /** Colours in readable lines; by default unless NO_COLOR is set. */
  color?: boolean;
  /** A fixed seed makes jitter reproducible (benchmarks, demos). */
  seed?: number;
}

/** The real dependencies, built once per process by an entrypoint and handed down. */
export async function createProcessDeps(options: ProcessDepsOptions): Promise<Deps> {
  const redact = createRedactor(secretsFromEnv(options.env, options.redactEnv));
  const log = await createLogger({
    level: options.level,
    pretty: options.isTTY,
    // https://no-color.org: any non-empty NO_COLOR turns colours off.
    color: options.color ?? !options.env.NO_COLOR,
    redact,
    write: options.write,
  });
  return { clock: systemClock, random: createRandom(options.seed), log, fetch: globalThis.fetch };
}
