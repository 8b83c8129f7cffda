/** Which sandbox of a session asked: the agent's commands and verify, `session.setup`, or `claude`. */
export type SandboxRole = 'commands' | 'setup' | 'claude';

/** A destination a session's egress proxy refused, and how often (seed: "Blocked network requests"). */
export interface BlockedRequest {
  role: SandboxRole;
  /** `host:port` as the command asked for it (`registry.example.com:443`, `[::1]:6379`). */
  destination: string;
  /** Refusals counted since the destination was last taken into the tally (exact below the cap). */
  count: number;
}

/** At most this many distinct destinations are kept per session; a flood is counted, not listed. */
export const MAX_BLOCKED_DESTINATIONS = 50;

export interface BlockedTally {
  record(role: SandboxRole, destination: string): void;
  /** Most-refused first, then by name. */
  list(): BlockedRequest[];
  /** Refusals counted in no listed destination (those of destinations the cap left out). */
  others(): number;
}

interface Slot {
  role: SandboxRole;
  destination: string;
  /** Space-Saving's estimate: at least the true count, at most `error` above it. */
  estimate: number;
  error: number;
  since: number;
}

/**
 * A bounded tally that a flood cannot blind (Space-Saving, Metwally et al. 2005): a new destination
 * past the cap takes the place of the least-counted one (the oldest of those), inheriting its count as
 * the error. So the destination asked last is always listed, and any destination refused more often
 * than 1/MAX_BLOCKED_DESTINATIONS of all refusals is never left out, whatever came before it: 300
 * made-up names first hid the real one when the first 50 were kept for good (found by the red team).
 */
export function createBlockedTally(): BlockedTally {
  const slots = new Map<string, Slot>();
  let total = 0;
  let arrivals = 0;
  const listed = () =>
    [...slots.values()].map(({ role, destination, estimate, error }) => ({
      role,
      destination,
      count: estimate - error,
    }));
  return {
    record(role, destination) {
      total += 1;
      arrivals += 1;
      const key = `${role}\u0000${destination}`;
      const known = slots.get(key);
      if (known) {
        known.estimate += 1;
        return;
      }
      if (slots.size < MAX_BLOCKED_DESTINATIONS) {
        slots.set(key, { role, destination, estimate: 1, error: 0, since: arrivals });
        return;
      }
      let least: [string, Slot] | undefined;
      for (const entry of slots) {
        const [, slot] = entry;
        if (!least || slot.estimate < least[1].estimate) least = entry;
        else if (slot.estimate === least[1].estimate && slot.since < least[1].since) least = entry;
      }
      if (!least) return;
      slots.delete(least[0]);
      const floor = least[1].estimate;
      slots.set(key, { role, destination, estimate: floor + 1, error: floor, since: arrivals });
    },
    list: () => listed().sort((a, b) => b.count - a.count || a.destination.localeCompare(b.destination)),
    others: () => total - listed().reduce((sum, entry) => sum + entry.count, 0),
  };
}
