/** Resolves when `check` holds, polling every few ms, or rejects after `ms`. */
export async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
