import { z } from 'zod';
import { DURATION_HELP, formatDuration, MAX_DURATION_TEXT, MAX_TIMER_MS, parseDuration } from './duration.js';

/**
 * A duration setting: a unit string (`90s`, `45m`) turned into milliseconds, within `bounds`, and
 * never longer than a timer can wait.
 */
export function duration(bounds: { min: number; max?: number }) {
  return z.string({ error: `expected ${DURATION_HELP}` }).transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `expected ${DURATION_HELP}, got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    // Fields with their own, smaller, maximum say that range instead.
    if (bounds.max === undefined && ms > MAX_TIMER_MS) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration of at most ${MAX_DURATION_TEXT} (a timer cannot wait longer than 2^31-1 ms, about 24.8 days), got ${JSON.stringify(text)}`,
      });
      return z.NEVER;
    }
    if (ms < bounds.min || (bounds.max !== undefined && ms > bounds.max)) {
      const range =
        bounds.max === undefined
          ? `of at least ${formatDuration(bounds.min)}`
          : `between ${formatDuration(bounds.min)} and ${formatDuration(bounds.max)}`;
      ctx.addIssue({ code: 'custom', message: `expected a duration ${range}, got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    return ms;
  });
}
