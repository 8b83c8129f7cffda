/** Which sandbox of a session asked: the agent's commands and verify, `session.setup`, or `claude`. */
export type SandboxRole = 'commands' | 'setup' | 'claude';

/** A destination a session's egress proxy refused, and how often (seed: "Blocked network requests"). */
export interface BlockedRequest {
  role: SandboxRole;
  /** `host:port` as the command asked for it (`registry.example.com:443`, `[::1]:6379`). */
  destination: string;
  count: number;
}

/** At most this many distinct destinations are kept per session; a flood is counted, not listed. */
export const MAX_BLOCKED_DESTINATIONS = 50;

export interface BlockedTally {
  record(role: SandboxRole, destination: string): void;
  /** Most-refused first, then by name. */
  list(): BlockedRequest[];
}

export function createBlockedTally(): BlockedTally {
  const counts = new Map<string, BlockedRequest>();
  return {
    record(role, destination) {
      const key = `${role}\u0000${destination}`;
      const known = counts.get(key);
      if (known) known.count += 1;
      else if (counts.size < MAX_BLOCKED_DESTINATIONS) counts.set(key, { role, destination, count: 1 });
    },
    list: () =>
      [...counts.values()]
        .map((entry) => ({ ...entry }))
        .sort((a, b) => b.count - a.count || a.destination.localeCompare(b.destination)),
  };
}
