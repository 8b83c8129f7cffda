/**
 * Durations in configuration are strings with units ("90s", "30m", "1h30m", "500ms"), never bare
 * numbers: a bare 30 could mean seconds or milliseconds, and that guess is how a TTL ends up 1000×
 * too short. (The `ms` package accepts bare numbers and long forms, so it is not used here.)
 */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/gy;

/**
 * The longest wait a Node.js timer can hold (2^31−1 ms, about 24.8 days). Past it Node prints a
 * TimeoutOverflowWarning and fires the timer at once, so a longer duration would mean "now".
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The longest duration a setting accepts, in whole days and as text for messages. */
export const MAX_DURATION_TEXT = '24d';

export const DURATION_HELP = 'a duration such as "90s", "30m", "1h30m" or "500ms" (units ms, s, m, h, d)';

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const input = text.trim();
  if (input === '') return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(input); match; match = PART.exec(input)) {
    const [whole, amount, unit] = match;
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
    consumed += whole.length;
    while (input[PART.lastIndex] === ' ') {
      PART.lastIndex++;
      consumed++;
    }
  }
  if (consumed !== input.length) return undefined;
  return Math.round(total);
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
