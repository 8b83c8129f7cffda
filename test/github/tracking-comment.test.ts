import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/core/random.js';
import { liveMentions } from '../../src/emulators/github/index.js';
import {
  emptyTrackingRecord,
  isTrackingComment,
  MAX_COMMENT_LENGTH,
  parseTrackingRecord,
  renderTrackingComment,
  TRACKING_MARKER,
  type TrackingRecord,
  type TrackingView,
} from '../../src/github/tracking-comment.js';

const TOKEN = `ghp_${'Z9y8X7w6V5'.repeat(3)}abcdef`;
const redact = (text: string): string => text.replace(/ghp_[A-Za-z0-9]{36}/g, '[REDACTED]');
const keep = (text: string): string => text;

const NOW = '2026-11-21T12:00:00.000Z';

function record(extra: Partial<TrackingRecord> = {}): TrackingRecord {
  return {
    ...emptyTrackingRecord(NOW),
    attempts: 2,
    failure_count: 2,
    failure_reasons: [
      { at: '2026-11-21T10:00:00.000Z', error_class: 'verify_failed', message: '3 tests failed' },
      { at: '2026-11-21T11:00:00.000Z', error_class: 'timeout', message: 'session ran out of time' },
    ],
    last_outcome: 'timeout',
    ...extra,
  };
}

function view(extra: Partial<TrackingView> = {}): TrackingView {
  return {
    phase: 'working',
    attempt: 3,
    model: 'claude-sonnet-5',
    costUsd: 0.4249,
    record: record(),
    ...extra,
  };
}

function recordLine(body: string): string {
  return body.split('\n').find((line) => line.startsWith('<!-- issueloop:record ')) ?? '';
}

function encode(value: unknown): string {
  return `<!-- issueloop:record ${Buffer.from(JSON.stringify(value)).toString('base64url')} -->`;
}

describe('renderTrackingComment', () => {
  it('starts with the marker, then a heading and a two-column status table', () => {
    const body = renderTrackingComment(
      view({ prUrl: 'https://github.com/acme/widgets/pull/12', lastFailure: 'timeout: ran out of time' }),
      redact,
    );
    const lines = body.split('\n');
    expect(lines[0]).toBe(TRACKING_MARKER);
    expect(lines[1]).toBe('**issueloop** · working on it');
    expect(lines).toContain('| Attempt | 3 |');
    expect(lines).toContain('| Model | claude-sonnet-5 |');
    expect(lines).toContain('| Cost so far | $0.42 |');
    expect(lines).toContain('| Pull request | [#12](https://github.com/acme/widgets/pull/12) |');
    expect(lines).toContain('| Last failure | timeout: ran out of time |');
    expect(isTrackingComment(body)).toBe(true);
  });

  it('says in every phase that the session ran unsandboxed when sandbox.mode is none, and nothing otherwise', () => {
    const row = "| Sandbox | **none**: the agent's commands ran unconfined (`sandbox.mode: none`) |";
    for (const phase of ['working', 'review', 'failed'] as const) {
      expect(renderTrackingComment(view({ phase, unsandboxed: true }), keep).split('\n')).toContain(row);
    }
    expect(renderTrackingComment(view(), keep)).not.toContain('Sandbox');
  });

  it('lists failures newest first inside <details>, and none when there are none', () => {
    const body = renderTrackingComment(view(), keep);
    expect(body).toContain('<details>');
    expect(body.indexOf('session ran out of time')).toBeLessThan(body.indexOf('3 tests failed'));
    expect(renderTrackingComment(view({ record: emptyTrackingRecord(NOW) }), keep)).not.toContain(
      '<details>',
    );
  });

  it('round-trips the record through the comment', () => {
    const body = renderTrackingComment(view(), redact);
    expect(parseTrackingRecord(body)).toEqual(record());
    expect(parseTrackingRecord(body.replace(/\n/g, '\r\n'))).toEqual(record());
  });

  it('redacts every free-text value, shown and recorded', () => {
    const body = renderTrackingComment(
      view({
        model: `model ${TOKEN}`,
        lastFailure: `git push https://x:${TOKEN}@github.com failed`,
        record: record({
          failure_reasons: [{ at: NOW, error_class: `auth ${TOKEN}`, message: `bad credentials ${TOKEN}` }],
          last_outcome: `failed ${TOKEN}`,
        }),
      }),
      redact,
    );
    expect(body).not.toContain(TOKEN);
    const parsed = parseTrackingRecord(body);
    expect(JSON.stringify(parsed)).not.toContain(TOKEN);
    expect(parsed?.failure_reasons[0]?.message).toBe('bad credentials [REDACTED]');
  });

  it('neutralises a hostile failure message: the table, the HTML and the record stay intact', () => {
    const hostile =
      'a | b\n| forged | row |\n--> <script>alert(1)</script> `code` [x](https://evil) \\ @octocat';
    const body = renderTrackingComment(
      view({
        lastFailure: hostile,
        record: record({ failure_reasons: [{ at: NOW, error_class: 'x', message: hostile }] }),
      }),
      keep,
    );
    const row = body.split('\n').find((line) => line.startsWith('| Last failure |')) ?? '';
    // Exactly the three pipes of a two-cell row, and no second line of it.
    expect(row.match(/\|/g)).toHaveLength(3);
    expect(body).not.toContain('| forged |');
    expect(body).not.toMatch(/<script|\[x\]\(|\\/);
    expect(row).toContain('@\u2060octocat');
    expect(liveMentions(body)).toEqual([]);
    // The only comment closers are those of the marker and of the record.
    expect(body.match(/-->/g)).toHaveLength(2);
    expect(parseTrackingRecord(body)?.failure_reasons[0]?.message).toBe(hostile.replace(/\s+/g, ' '));
  });

  it("says which of a best-of-N claim's attempts was chosen, or that none passed verify (issue 32 item 1)", () => {
    const chosen = renderTrackingComment(
      view({
        phase: 'review',
        bestOf: {
          n: 3,
          ran: [
            { k: 1, outcome: 'not_chosen' },
            { k: 2, outcome: 'resolved' },
          ],
          winner: 2,
          why: 'the smaller diff',
        },
      }),
      keep,
    );
    expect(chosen.split('\n')).toContain(
      '| Attempts | best of 3 (2 ran): attempt 2 chosen (the smaller diff) |',
    );
    const none = renderTrackingComment(
      view({
        phase: 'failed',
        bestOf: {
          n: 2,
          ran: [
            { k: 1, outcome: 'verify_failed' },
            { k: 2, outcome: 'verify_failed' },
          ],
          why: 'x',
        },
      }),
      keep,
    );
    expect(none.split('\n')).toContain('| Attempts | 2 attempts, none passed verify |');
    expect(renderTrackingComment(view(), keep)).toContain('| Model |');
    expect(renderTrackingComment(view(), keep)).not.toContain('| Attempts |');
  });

  it('neutralises a hostile judge reason in the Attempts row like every other line', () => {
    const why = `a | b\n| forged | row | <script>x</script> [x](https://evil) @octocat closes #1 ${TOKEN}`;
    const body = renderTrackingComment(
      view({ bestOf: { n: 3, ran: [{ k: 1, outcome: 'resolved' }], winner: 1, why } }),
      redact,
    );
    const row = body.split('\n').find((line) => line.startsWith('| Attempts |')) ?? '';
    expect(row).toContain('attempt 1 chosen');
    expect(row.match(/\|/g)).toHaveLength(3);
    expect(body).not.toContain('| forged |');
    expect(body).not.toMatch(/<script|\[x\]\(/);
    expect(body).not.toContain(TOKEN);
    expect(row).toContain('&#91;REDACTED&#93;');
    expect(liveMentions(body)).toEqual([]);
  });

  it('caps the record at the newest 10 reasons of at most 300 characters', () => {
    const reasons = Array.from({ length: 25 }, (_, i) => ({
      at: `2026-11-21T10:${String(i).padStart(2, '0')}:00.000Z`,
      error_class: 'verify_failed',
      message: `failure ${i} ${'x'.repeat(1_000)}`,
    }));
    const parsed = parseTrackingRecord(
      renderTrackingComment(view({ record: record({ failure_count: 25, failure_reasons: reasons }) }), keep),
    );
    expect(parsed?.failure_reasons).toHaveLength(10);
    expect(parsed?.failure_reasons[0]?.message).toMatch(/^failure 15 /);
    expect(parsed?.failure_reasons[9]?.message).toMatch(/^failure 24 /);
    expect(parsed?.failure_reasons.every((r) => r.message.length <= 300)).toBe(true);
    expect(parsed?.failure_count).toBe(25);
  });

  it('stays under GitHub’s 65,536 characters whatever the input', () => {
    const worst = '|<`&\\'.repeat(200_000);
    const reasons = Array.from({ length: 50 }, () => ({ at: NOW, error_class: worst, message: worst }));
    const body = renderTrackingComment(
      view({ model: worst, lastFailure: worst, prUrl: worst, record: record({ failure_reasons: reasons }) }),
      keep,
    );
    expect(body.length).toBeLessThan(MAX_COMMENT_LENGTH);
    expect(parseTrackingRecord(body)?.failure_reasons).toHaveLength(10);
    const cell = body.split('\n').find((line) => line.startsWith('| Model |')) ?? '';
    expect(cell.length).toBeLessThan(300 * 6 + 20);
  });

  it('shows a pull request link only for a plain https URL', () => {
    const body = renderTrackingComment(view({ prUrl: 'javascript:alert(1)' }), keep);
    expect(body).toContain('| Pull request | javascript:alert(1) |');
    expect(body).not.toContain('](javascript');
  });
});

describe('parseTrackingRecord', () => {
  const good = renderTrackingComment(view(), keep);

  it('refuses tampered, truncated, doubled or misplaced records', () => {
    const line = recordLine(good);
    const encoded = line.slice('<!-- issueloop:record '.length, -' -->'.length);
    const flipped = encoded.slice(0, 20) + (encoded[20] === 'A' ? 'B' : 'A') + encoded.slice(21);
    const cases = [
      good.replace(line, line.replace(encoded, flipped)),
      good.replace(line, line.replace(encoded, encoded.slice(0, -7))),
      good.replace(line, line.slice(0, -4)),
      good.replace(line, line.replace(encoded, '!!!not-base64!!!')),
      good.replace(line, line.replace(encoded, '')),
      `${good}\n${line}`,
      good.replace(line, `text ${line}`),
      good.replace(line, ''),
      '',
    ];
    for (const body of cases) expect(parseTrackingRecord(body)).toBeUndefined();
  });

  it('trusts no record when a second one is pasted, even a well-formed one', () => {
    const fake = encode({ ...record(), attempts: 0, failure_count: 0, failure_reasons: [] });
    expect(parseTrackingRecord(`${good}\n${fake}`)).toBeUndefined();
    expect(parseTrackingRecord(`${fake}\n${good}`)).toBeUndefined();
  });

  it('accepts only the exact schema: version 1, non-negative integers, ISO times, no extra keys', () => {
    const wrong: unknown[] = [
      { ...record(), version: 2 },
      { ...record(), attempts: -1 },
      { ...record(), failure_count: 1.5 },
      { ...record(), updated_at: 'yesterday' },
      { ...record(), admin: true },
      { ...record(), failure_reasons: [{ at: NOW, error_class: '', message: 'x' }] },
      {
        ...record(),
        failure_reasons: Array.from({ length: 11 }, () => ({ at: NOW, error_class: 'x', message: 'y' })),
      },
      [record()],
      null,
    ];
    for (const value of wrong)
      expect(parseTrackingRecord(`${TRACKING_MARKER}\n${encode(value)}`)).toBeUndefined();
    expect(parseTrackingRecord(`${TRACKING_MARKER}\n${encode(record())}`)).toEqual(record());
  });

  it('refuses a record over 64 KiB without decoding it', () => {
    const bomb = { ...record(), last_outcome: 'x'.repeat(70_000) };
    expect(parseTrackingRecord(encode(bomb))).toBeUndefined();
    const nested = `${'['.repeat(40_000)}${']'.repeat(40_000)}`;
    expect(
      parseTrackingRecord(`<!-- issueloop:record ${Buffer.from(nested).toString('base64url')} -->`),
    ).toBeUndefined();
  });

  it('never throws on garbage', () => {
    const random = createSeededRandom(42);
    const alphabet = `<!-- issueloop:record AZaz09_-\n{}[]":,>${'\u0000\uD800'}`;
    for (let i = 0; i < 500; i++) {
      const length = Math.floor(random() * 200);
      const body = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(() => parseTrackingRecord(`<!-- issueloop:record ${body}`)).not.toThrow();
    }
  });
});

describe('isTrackingComment', () => {
  it('wants the marker at the start of a line', () => {
    expect(isTrackingComment(`${TRACKING_MARKER}\nstatus`)).toBe(true);
    expect(isTrackingComment(`hello\r\n${TRACKING_MARKER}`)).toBe(true);
    expect(isTrackingComment(`quoting ${TRACKING_MARKER} in a sentence`)).toBe(false);
    expect(isTrackingComment('<!-- issueloop:record abc -->')).toBe(false);
  });
});
