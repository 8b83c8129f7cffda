/** Resolves when `check` holds, polling every few ms, or rejects after `ms`. */
export async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Resolves after `turns` turns of the event loop (no timer, no wall clock): enough for in-process
 * work that is free to run (emulator requests, fs callbacks aside) to take its next steps.
 */
export async function eventLoopTurns(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
