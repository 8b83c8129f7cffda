/**
 * Whether a conversation of `contextTokens` (the API's usage: input, cache reads and writes, output)
 * has passed `threshold` (a fraction, like 0.8) of the model's context window. Strictly past: at
 * exactly the threshold there is still room. Nonsensical measures (a window ≤ 0, NaN) never trigger.
 */
export function shouldCompact(contextTokens: number, contextWindow: number, threshold: number): boolean {
  if (!(contextWindow > 0) || !Number.isFinite(contextTokens) || !Number.isFinite(threshold)) return false;
  return contextTokens > limitTokens(contextWindow, threshold);
}

/** The token count at the threshold, rid of float noise (0.57 × 100 is 56.99999999999999, 0.07 × 100 is 7.000000000000001). */
function limitTokens(contextWindow: number, threshold: number): number {
  return Math.round(contextWindow * threshold * 1e6) / 1e6;
}

/** How full the window is, in whole percent, rounded down so that a log line never overstates it. */
export function compactionPercent(contextTokens: number, contextWindow: number): number {
  if (!(contextWindow > 0) || !Number.isFinite(contextTokens)) return 0;
  return Math.floor((contextTokens * 100) / contextWindow);
}

/** The log line of seed 000, feature 5. */
export function compactionLogLine(contextTokens: number, contextWindow: number): string {
  return `compaction: context at ${compactionPercent(contextTokens, contextWindow)}%, starting fresh session with summary`;
}
