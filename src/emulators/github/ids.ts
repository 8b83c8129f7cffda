import { createHash } from 'node:crypto';

/**
 * Deterministic identifiers: two emulators seeded the same way hand out the same ids, so request logs
 * and snapshots can be compared across runs. Each kind counts from its own base, which keeps the
 * numbers of different kinds apart when a test prints them.
 */
export interface IdSource {
  /** The next database id of a kind (`user`, `issue`, ...). */
  next(kind: string): number;
  /** An opaque GraphQL global id in GitHub's style: a type prefix, then an encoded payload. */
  node(prefix: string, payload: string | number): string;
  /** A single-select option id: 8 hex characters, like GitHub's. */
  option(): string;
}

const BASES: Record<string, number> = {
  user: 1,
  repo: 100_000,
  label: 200_000,
  issue: 1_000_000,
  pull: 2_000_000,
  comment: 3_000_000,
  event: 4_000_000,
  project: 5_000_000,
  field: 6_000_000,
  item: 7_000_000,
  check: 8_000_000,
  run: 8_500_000,
  status: 9_000_000,
  review: 10_000_000,
  review_comment: 11_000_000,
};

export function createIdSource(): IdSource {
  const counters = new Map<string, number>();
  let options = 0;
  return {
    next(kind) {
      const value = counters.get(kind) ?? BASES[kind] ?? 1;
      counters.set(kind, value + 1);
      return value;
    },
    node(prefix, payload) {
      return `${prefix}_kwDO${Buffer.from(`emu:${payload}`).toString('base64url')}`;
    },
    option() {
      options += 1;
      return sha1(`option:${options}`).slice(0, 8);
    },
  };
}

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** GitHub's timestamp format: ISO 8601 in UTC without milliseconds. */
export function isoSeconds(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
