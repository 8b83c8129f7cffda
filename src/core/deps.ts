import type { Clock } from './clock.js';
import type { Log } from './logger.js';
import type { Random } from './random.js';

/**
 * What every layer is handed instead of reaching for globals. Entrypoints build the real ones;
 * tests build fakes (a clock that does not sleep, a seeded random, a recording logger, nock'd fetch).
 */
export interface Deps {
  clock: Clock;
  random: Random;
  log: Log;
  fetch: typeof globalThis.fetch;
}
