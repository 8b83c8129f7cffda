import { describe, expect, it } from 'vitest';
import type { HumanTouch, OutcomeRecord, PullFate, SessionEntry } from '../../src/claims/outcome-record.js';
import { MAX_SESSIONS, type OutcomeStore, type SessionMeta } from '../../src/claims/outcome-store.js';

/** Two stores on the same storage (for memory: the same backend), as two runners would open it. */
export type OutcomeContractFactory = () => Promise<{ store: OutcomeStore; twin: OutcomeStore }>;

export function sessionEntry(over: Partial<SessionEntry> = {}): SessionEntry {
  return {
    kind: 'attempt',
    at: '2026-11-02T10:00:00.000Z',
    run_id: 'run-1',
    engine: 'native',
    models: ['claude-sonnet-4-5'],
    input_tokens: 1200,
    output_tokens: 340,
    cache_read_tokens: 5000,
    cache_write_tokens: 800,
    usd: 0.0421,
    duration_ms: 61_000,
    outcome: 'resolved',
    ...over,
  };
}

const meta: SessionMeta = {
  title: 'Fix the parser',
  labels: ['issueloop', 'bug'],
  claimedAt: '2026-11-02T09:59:00.000Z',
};
const untouched: HumanTouch = { commits: 0, change_requests: 0, threads: 0 };
const openPull: PullFate = {
  number: 41,
  url: 'http://127.0.0.1/acme/widgets/pull/41',
  state: 'open',
  opened_at: '2026-11-02T10:01:00.000Z',
};

/** The behaviour every OutcomeStore has; memory, file and Redis run it unchanged. */
export function describeOutcomeStoreContract(name: string, factory: OutcomeContractFactory): void {
  describe(`OutcomeStore contract: ${name}`, () => {
    it("records a session's entry with its tokens and dollars, and the first claim's time", async () => {
      const { store } = await factory();
      expect(await store.get(7)).toBeUndefined();
      await store.recordSession(7, sessionEntry(), meta);
      const expected: OutcomeRecord = {
        issue: 7,
        title: 'Fix the parser',
        labels: ['issueloop', 'bug'],
        first_claimed_at: '2026-11-02T09:59:00.000Z',
        sessions: [sessionEntry()],
        touch: untouched,
      };
      expect(await store.get(7)).toEqual(expected);
      expect(await store.list()).toEqual([expected]);
    });

    it('appends later sessions, never moves first_claimed_at, and follows the title and labels', async () => {
      const { store } = await factory();
      await store.recordSession(7, sessionEntry(), meta);
      const followUp = sessionEntry({ kind: 'ci_followup', run_id: 'run-2', usd: 0.01, models: ['a', 'b'] });
      await store.recordSession(7, followUp, {
        title: 'Fix the parser (again)',
        labels: ['issueloop'],
        claimedAt: '2026-11-03T00:00:00.000Z',
      });
      const record = await store.get(7);
      expect(record?.first_claimed_at).toBe('2026-11-02T09:59:00.000Z');
      expect(record?.sessions.map((s) => [s.kind, s.usd])).toEqual([
        ['attempt', 0.0421],
        ['ci_followup', 0.01],
      ]);
      expect(record?.title).toBe('Fix the parser (again)');
      expect(record?.labels).toEqual(['issueloop']);
    });

    it(`keeps the newest ${MAX_SESSIONS} sessions`, async () => {
      const { store } = await factory();
      for (let i = 1; i <= MAX_SESSIONS + 2; i++) {
        await store.recordSession(3, sessionEntry({ run_id: `run-${i}` }), meta);
      }
      const runs = (await store.get(3))?.sessions.map((s) => s.run_id) ?? [];
      expect(runs).toHaveLength(MAX_SESSIONS);
      expect(runs[0]).toBe('run-3');
      expect(runs.at(-1)).toBe(`run-${MAX_SESSIONS + 2}`);
    });

    it("keeps the pull's fate and touch only for a known issue", async () => {
      const { store } = await factory();
      expect(await store.recordPull(7, openPull, untouched)).toBe(false);
      expect(await store.list()).toEqual([]);
      await store.recordSession(7, sessionEntry(), meta);
      const touched = { commits: 1, change_requests: 2, threads: 3 };
      expect(await store.recordPull(7, openPull, touched)).toBe(true);
      const record = await store.get(7);
      expect(record?.pull).toEqual(openPull);
      expect(record?.touch).toEqual(touched);
    });

    it('a merge is final: an older read of the PR as open does not undo it; a closed PR may reopen', async () => {
      const { store } = await factory();
      await store.recordSession(7, sessionEntry(), meta);
      const merged: PullFate = {
        ...openPull,
        state: 'merged',
        merged_at: '2026-11-04T00:00:00.000Z',
        by: 'maint',
      };
      await store.recordPull(7, merged, untouched);
      await store.recordPull(7, openPull, { commits: 5, change_requests: 0, threads: 0 });
      expect((await store.get(7))?.pull).toEqual(merged);
      expect((await store.get(7))?.touch).toEqual(untouched);

      await store.recordSession(8, sessionEntry(), meta);
      await store.recordPull(
        8,
        { ...openPull, state: 'closed', closed_at: '2026-11-04T00:00:00.000Z' },
        untouched,
      );
      await store.recordPull(8, openPull, untouched);
      expect((await store.get(8))?.pull?.state).toBe('open');
    });

    it("bug: a PR closed unmerged vanished from the record once its issue's next PR opened: it is kept in earlier_pulls", async () => {
      const { store, twin } = await factory();
      await store.recordSession(7, sessionEntry(), meta);
      const closed: PullFate = { ...openPull, state: 'closed', closed_at: '2026-11-03T00:00:00.000Z' };
      await store.recordPull(7, closed, { commits: 1, change_requests: 0, threads: 0 });
      const next: PullFate = { ...openPull, number: 45, url: openPull.url.replace('41', '45') };
      await store.recordPull(7, next, untouched);
      const record = await twin.get(7);
      expect(record?.pull).toEqual(next);
      expect(record?.earlier_pulls).toEqual([closed]);
      // The touch is the current PR's; a late read of the replaced PR brings nothing back.
      expect(record?.touch).toEqual(untouched);
      expect(await store.recordPull(7, openPull, untouched)).toBe(true);
      expect(await twin.get(7)).toEqual(record);
    });

    it('a PR last seen open and replaced by a newer one is kept as closed (a branch has one open PR)', async () => {
      const { store } = await factory();
      await store.recordSession(7, sessionEntry(), meta);
      await store.recordPull(7, openPull, untouched);
      await store.recordPull(7, { ...openPull, number: 45 }, untouched);
      expect((await store.get(7))?.earlier_pulls).toEqual([{ ...openPull, state: 'closed' }]);
    });

    it('imports a record only for an issue it does not know', async () => {
      const { store } = await factory();
      const imported: OutcomeRecord = {
        issue: 9,
        title: 'Imported',
        labels: ['issueloop'],
        first_claimed_at: '2026-10-01T00:00:00.000Z',
        sessions: [sessionEntry({ usd: 1.5 })],
        pull: openPull,
        touch: { commits: 1, change_requests: 0, threads: 0 },
      };
      expect(await store.importRecord(9, imported)).toBe(true);
      expect(await store.get(9)).toEqual(imported);
      expect(await store.importRecord(9, { ...imported, title: 'older' })).toBe(false);
      expect((await store.get(9))?.title).toBe('Imported');

      await store.recordSession(10, sessionEntry(), meta);
      expect(await store.importRecord(10, { ...imported, issue: 10 })).toBe(false);
      expect((await store.get(10))?.sessions).toHaveLength(1);
      await expect(store.importRecord(11, imported)).rejects.toThrow(/#9 cannot be stored as #11/);
    });

    it('lists every record by issue number', async () => {
      const { store } = await factory();
      for (const issue of [12, 3, 7]) await store.recordSession(issue, sessionEntry(), meta);
      expect((await store.list()).map((r) => r.issue)).toEqual([3, 7, 12]);
    });

    it('loses no session when two stores on the same storage write one record at once', async () => {
      const { store, twin } = await factory();
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 === 0 ? store : twin).recordSession(5, sessionEntry({ run_id: `run-${i}` }), meta),
        ),
      );
      const runs = (await twin.get(5))?.sessions.map((s) => s.run_id).sort() ?? [];
      expect(runs).toEqual(Array.from({ length: 12 }, (_, i) => `run-${i}`).sort());
    });

    it('refuses an issue number that is not a positive integer', async () => {
      const { store } = await factory();
      await expect(store.recordSession(0, sessionEntry(), meta)).rejects.toThrow(/positive integer/);
      await expect(store.get(-1)).rejects.toThrow(/positive integer/);
    });
  });
}
