/** Between SIGTERM and SIGKILL: long enough for git to drop its locks or a test runner to clean up. */
export const KILL_GRACE_MS = 2_000;

/**
 * Signals a whole process group (a child spawned with `detached: true` leads its own), so what the
 * child started dies with it. Never throws: ESRCH means the group is gone already, and this runs
 * from timers, where an exception would take the whole harness down.
 */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Nothing left to signal.
  }
}

/** SIGTERM now, SIGKILL after the grace period; returns the timer so a clean exit can cancel it. */
export function stopGroup(pid: number, graceMs = KILL_GRACE_MS): NodeJS.Timeout {
  killGroup(pid, 'SIGTERM');
  return setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
}
