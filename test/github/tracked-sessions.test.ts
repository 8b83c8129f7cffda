import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_TRACKED_SESSIONS,
  mergeSessions,
  parseSessionsLine,
  SESSIONS_OPEN,
  sessionsLine,
  type TrackedSession,
} from '../../src/github/tracked-sessions.js';
import {
  emptyTrackingRecord,
  parseTrackingRecord,
  renderTrackingComment,
  type TrackingRecord,
} from '../../src/github/tracking-comment.js';
import { createTempStateDirs } from '../claims/temp-state-dirs.js';
import { emulated } from './emulated.js';

const dirs = createTempStateDirs();
afterEach(() => dirs.cleanup());

const NOW = '2026-11-21T12:00:00.000Z';
const identity = (text: string) => text;

function tracked(i: number, more: Partial<TrackedSession> = {}): TrackedSession {
  return {
    kind: 'attempt',
    at: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
    run_id: `20261101T000000Z-${String(i).padStart(4, '0')}`,
    engine: 'native',
    models: ['claude-sonnet-4-5'],
    tokens: [1000, 200, 30, 4],
    usd: 0.125 * (i + 1),
    duration_ms: 60_000,
    outcome: 'resolved',
    ...more,
  };
}

function record(sessions?: TrackedSession[]): TrackingRecord {
  return {
    ...emptyTrackingRecord(NOW),
    attempts: 2,
    failure_count: 1,
    failure_reasons: [{ at: NOW, error_class: 'verify_failed', message: 'npm test exited 1' }],
    last_outcome: 'verify_failed',
    ...(sessions ? { sessions } : {}),
  };
}

const body = (r: TrackingRecord) =>
  renderTrackingComment({ phase: 'failed', attempt: 2, record: r }, identity);

/** A body whose sessions line is `payload` as issueloop would encode it, but not as it would write it. */
function forged(payload: unknown): string {
  const line = `${SESSIONS_OPEN}${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')} -->`;
  return `${body(record())}\n${line}`;
}

describe('the sessions line of a tracking comment', () => {
  it('round-trips the sessions beside the record, exact to the dollar', () => {
    const sessions = [tracked(0), tracked(1, { kind: 'ci_followup', engine: 'claude-code', usd: 0.1 + 0.2 })];
    expect(parseTrackingRecord(body(record(sessions)))).toEqual(record(sessions));
  });

  it("leaves the record's own line as a reader from before the sessions reads it: no new field in it", () => {
    const text = body(record([tracked(0)]));
    const encoded = /<!-- issueloop:record ([A-Za-z0-9_-]+) -->/.exec(text)?.[1] ?? '';
    const json = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(
      ['attempts', 'failure_count', 'failure_reasons', 'last_outcome', 'updated_at', 'version'].sort(),
    );
    expect(text).toContain(SESSIONS_OPEN);
  });

  it('an old comment, with no sessions line, still parses: history without sessions', () => {
    const old = parseTrackingRecord(body(record()));
    expect(old?.failure_count).toBe(1);
    expect(old && 'sessions' in old).toBe(false);
  });

  it(`an oversized list (more than ${MAX_TRACKED_SESSIONS}) is not issueloop's: dropped whole, the record kept`, () => {
    const many = Array.from({ length: MAX_TRACKED_SESSIONS + 1 }, (_, i) => tracked(i));
    expect(parseSessionsLine(forged(many.slice(0, MAX_TRACKED_SESSIONS)))).toHaveLength(MAX_TRACKED_SESSIONS);
    const parsed = parseTrackingRecord(forged(many));
    expect(parsed?.failure_count).toBe(1);
    expect(parsed?.sessions).toBeUndefined();
  });

  it('a list with any figure out of bounds or any name off the alphabet is dropped whole', () => {
    expect(parseSessionsLine(forged([tracked(0)]))).toEqual([tracked(0)]);
    for (const bad of [
      { usd: -1 },
      { usd: 1e9 },
      { usd: '5' },
      { duration_ms: 1.5 },
      { tokens: [1, 2, 3] },
      { models: ['<img src=x>'] },
      { outcome: 'resolved | $0 |' },
      { run_id: '../../etc' },
      { kind: 'bonus' },
      { at: 'yesterday' },
    ]) {
      expect(
        parseSessionsLine(forged([tracked(0), { ...tracked(1), ...bad }])),
        JSON.stringify(bad),
      ).toBeUndefined();
    }
    expect(parseSessionsLine(forged([{ ...tracked(0), extra: 1 }]))).toBeUndefined();
  });

  it('two sessions lines (one pasted in) are trusted neither', () => {
    const text = `${body(record([tracked(0)]))}\n${sessionsLine([tracked(1, { usd: 99 })])}`;
    expect(parseTrackingRecord(text)?.sessions).toBeUndefined();
    expect(parseTrackingRecord(text)?.attempts).toBe(2);
  });

  it('writes the newest sessions only, and what the reader would accept', () => {
    const many = Array.from({ length: MAX_TRACKED_SESSIONS + 5 }, (_, i) => tracked(i));
    const written = parseTrackingRecord(body(record([...many, tracked(99, { usd: -3 })])))?.sessions;
    expect(written).toHaveLength(MAX_TRACKED_SESSIONS);
    expect(written?.[0]).toEqual(tracked(5));
    expect(written?.at(-1)).toEqual(tracked(MAX_TRACKED_SESSIONS + 4));
  });

  it('merges a writer’s sessions into the listed ones: each once, oldest first', () => {
    expect(mergeSessions([tracked(2), tracked(0)], [tracked(1), tracked(2)])).toEqual([
      tracked(0),
      tracked(1),
      tracked(2),
    ]);
  });
});

describe("the tracking comment's sessions on GitHub", () => {
  async function withIssue() {
    const e = await emulated(await dirs.make());
    const n = e.emulator.addIssue({
      title: 'Fix it',
      author: 'm',
      authorAssociation: 'OWNER',
      labels: ['issueloop'],
    });
    return { e, n };
  }

  it("a write that knows no sessions (a claim's, the sweep's) keeps the ones the comment lists", async () => {
    const { e, n } = await withIssue();
    await e.adapter.tracking.upsert(n, { phase: 'review', attempt: 1, record: record([tracked(0)]) });
    // A new process (another runner, the next job) writes without sessions.
    const next = await e.reopen();
    await next.tracking.upsert(n, { phase: 'done', attempt: 1, record: record() });
    await next.tracking.upsert(n, { phase: 'working', attempt: 2, record: record([tracked(1)]) });
    const fresh = await e.reopen();
    expect((await fresh.tracking.readRecord(n))?.sessions).toEqual([tracked(0), tracked(1)]);
  });

  it('a forged session list in a comment not written by issueloop is ignored', async () => {
    const { e, n } = await withIssue();
    const text = body(record([tracked(0, { usd: 5000 })]));
    e.emulator.addComment(n, { author: 'mallory', authorAssociation: 'NONE', body: text });
    expect(await e.adapter.tracking.readRecord(n)).toBeUndefined();
    // The same text by a member is read: what made the difference is who wrote it.
    e.emulator.addComment(n, { author: 'octocat', authorAssociation: 'MEMBER', body: text });
    expect((await (await e.reopen()).tracking.readRecord(n))?.sessions?.[0]?.usd).toBe(5000);
  });
});
