import { join } from 'node:path';
import { createFileOutcomeStore } from '../../src/claims/file-outcome-store.js';
import type { OutcomeRecord, SessionEntry } from '../../src/claims/outcome-record.js';

/** Outcome records for the report's tests: dollars are multiples of 1/8, exact in binary. */

export const NOW = Date.parse('2025-06-30T00:00:00Z');
export const DAY = 86_400_000;

export function session(at: string, usd: number, more: Partial<SessionEntry> = {}): SessionEntry {
  return {
    kind: 'attempt',
    at,
    run_id: 'run-1',
    engine: 'native',
    models: ['claude-opus-4-1'],
    input_tokens: 1000,
    output_tokens: 100,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    usd,
    duration_ms: 60_000,
    outcome: 'resolved',
    ...more,
  };
}

export function record(issue: number, more: Partial<OutcomeRecord>): OutcomeRecord {
  return {
    issue,
    title: `Issue ${issue}`,
    labels: [],
    first_claimed_at: more.sessions?.[0]?.at ?? '2025-06-01T00:00:00Z',
    sessions: [],
    touch: { commits: 0, change_requests: 0, threads: 0 },
    ...more,
  };
}

export const pull = (issue: number, state: 'open' | 'merged' | 'closed', opened: string, ended?: string) => ({
  number: 100 + issue,
  url: `https://github.example/acme/widgets/pull/${100 + issue}`,
  state,
  opened_at: opened,
  ...(state === 'merged' ? { merged_at: ended, by: 'maintainer' } : {}),
  ...(state === 'closed' ? { closed_at: ended, by: 'maintainer' } : {}),
});

/**
 * Seven issues against NOW with the default 30d window (from 2025-05-31):
 * #1 merged untouched after a review follow-up; #2 merged after a maintainer's commit (claude-code);
 * #3 closed unmerged (its model failed over from sonnet to opus); #4 still open, no label; #5 all
 * before the window; #6 attempted before the window, a CI follow-up and a change request in it, merged
 * in it; #7 failed with no PR.
 */
export function fleet(): OutcomeRecord[] {
  const sonnet = ['claude-sonnet-4-5'];
  const haiku = ['claude-haiku-4-5'];
  return [
    record(1, {
      labels: ['bug'],
      first_claimed_at: '2025-06-10T00:00:00Z',
      sessions: [
        session('2025-06-10T01:00:00Z', 1.25),
        session('2025-06-11T00:00:00Z', 0.5, { kind: 'review_followup', models: sonnet }),
      ],
      pull: pull(1, 'merged', '2025-06-10T01:00:00Z', '2025-06-12T00:00:00Z'),
    }),
    record(2, {
      labels: ['bug', 'docs'],
      first_claimed_at: '2025-06-01T00:00:00Z',
      sessions: [session('2025-06-01T01:00:00Z', 2, { engine: 'claude-code' })],
      pull: pull(2, 'merged', '2025-06-01T01:00:00Z', '2025-06-05T00:00:00Z'),
      touch: { commits: 1, change_requests: 0, threads: 1 },
    }),
    record(3, {
      labels: ['docs'],
      first_claimed_at: '2025-06-15T00:00:00Z',
      sessions: [session('2025-06-15T01:00:00Z', 0.75, { models: [...sonnet, 'claude-opus-4-1'] })],
      pull: pull(3, 'closed', '2025-06-15T01:00:00Z', '2025-06-20T00:00:00Z'),
    }),
    record(4, {
      first_claimed_at: '2025-06-25T00:00:00Z',
      sessions: [session('2025-06-25T01:00:00Z', 0.25)],
      pull: pull(4, 'open', '2025-06-25T01:00:00Z'),
    }),
    record(5, {
      labels: ['bug'],
      first_claimed_at: '2025-04-01T00:00:00Z',
      sessions: [session('2025-04-01T01:00:00Z', 8)],
      pull: pull(5, 'merged', '2025-04-01T01:00:00Z', '2025-04-03T00:00:00Z'),
    }),
    record(6, {
      labels: ['bug'],
      first_claimed_at: '2025-05-20T00:00:00Z',
      sessions: [
        session('2025-05-20T01:00:00Z', 4, { models: haiku }),
        session('2025-06-02T00:00:00Z', 0.125, { kind: 'ci_followup', models: haiku }),
      ],
      pull: pull(6, 'merged', '2025-05-20T01:00:00Z', '2025-06-03T00:00:00Z'),
      touch: { commits: 0, change_requests: 1, threads: 0 },
    }),
    record(7, {
      first_claimed_at: '2025-06-28T00:00:00Z',
      sessions: [session('2025-06-28T01:00:00Z', 0.5, { outcome: 'verify_failed' })],
    }),
  ];
}

const shiftIso = (iso: string | undefined, ms: number) =>
  iso === undefined ? undefined : new Date(Date.parse(iso) + ms).toISOString();

/** The records moved by `ms` (the fleet against the real clock, for a CLI that reads it). */
export function shifted(records: readonly OutcomeRecord[], ms: number): OutcomeRecord[] {
  return records.map((r) => ({
    ...r,
    first_claimed_at: shiftIso(r.first_claimed_at, ms) ?? r.first_claimed_at,
    sessions: r.sessions.map((s) => ({ ...s, at: shiftIso(s.at, ms) ?? s.at })),
    ...(r.pull
      ? {
          pull: {
            ...r.pull,
            opened_at: shiftIso(r.pull.opened_at, ms) ?? r.pull.opened_at,
            ...(r.pull.merged_at ? { merged_at: shiftIso(r.pull.merged_at, ms) } : {}),
            ...(r.pull.closed_at ? { closed_at: shiftIso(r.pull.closed_at, ms) } : {}),
          },
        }
      : {}),
  }));
}

/** A state directory whose outcome store (outcomes.json) holds these records, written through the store. */
export async function storeOutcomes(stateDir: string, records: readonly OutcomeRecord[]): Promise<void> {
  const store = createFileOutcomeStore({ file: join(stateDir, 'outcomes.json') });
  try {
    for (const r of records) await store.importRecord(r.issue, r);
  } finally {
    await store.close();
  }
}
