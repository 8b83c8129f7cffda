import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import {
  emptyTrackingRecord,
  isTrackingComment,
  MAX_COMMENT_LENGTH,
  parseTrackingRecord,
  renderTrackingComment,
  TRACKING_MARKER,
  type TrackingRecord,
} from '../../src/github/tracking-comment.js';

const TOKEN = `ghp_${'x'.repeat(36)}`;
const redact = createRedactor([TOKEN]);
const NOW = '2026-11-21T12:00:00.000Z';

function record(extra: Partial<TrackingRecord> = {}): TrackingRecord {
  return { ...emptyTrackingRecord(NOW), ...extra };
}

describe('tracking comment body', () => {
  it('round-trips the machine record and starts with the marker', () => {
    const r = record({
      attempts: 3,
      failure_count: 2,
      failure_reasons: [
        { at: NOW, error_class: 'verify_failed', message: 'npm test exited 1' },
        { at: NOW, error_class: 'timeout', message: 'model call timed out' },
      ],
      last_outcome: 'verify_failed',
    });
    const body = renderTrackingComment({ phase: 'failed', attempt: 3, costUsd: 1.234, record: r }, redact);
    expect(body.startsWith(`${TRACKING_MARKER}\n`)).toBe(true);
    expect(isTrackingComment(body)).toBe(true);
    expect(parseTrackingRecord(body)).toEqual(r);
    expect(body).toContain('| Cost so far | $1.23 |');
  });

  it('a hostile failure message cannot break the table, close the record or carry the token', () => {
    const message = `boom | --> <script>alert(1)</script>\n\`x\` ${TOKEN}`;
    const r = record({ failure_count: 1, failure_reasons: [{ at: NOW, error_class: 'unknown', message }] });
    const body = renderTrackingComment(
      { phase: 'failed', attempt: 1, lastFailure: message, record: r },
      redact,
    );
    expect(body).not.toContain(TOKEN);
    expect(body).not.toContain('<script>');
    const row = body.split('\n').find((l) => l.startsWith('| Last failure'));
    expect(row?.split('|')).toHaveLength(4);
    expect(parseTrackingRecord(body)?.failure_reasons[0]?.message).not.toContain(TOKEN);
  });

  it('keeps ten reasons and stays under GitHub’s comment limit whatever the input', () => {
    const reasons = Array.from({ length: 25 }, (_, i) => ({
      at: NOW,
      error_class: 'unknown',
      message: `${i} ${'y'.repeat(5000)}`,
    }));
    const body = renderTrackingComment(
      {
        phase: 'failed',
        attempt: 25,
        model: 'm'.repeat(10_000),
        lastFailure: 'z'.repeat(100_000),
        record: record({ failure_reasons: reasons }),
      },
      redact,
    );
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_LENGTH);
    expect(parseTrackingRecord(body)?.failure_reasons.map((r) => r.message.split(' ')[0])).toEqual([
      '15',
      '16',
      '17',
      '18',
      '19',
      '20',
      '21',
      '22',
      '23',
      '24',
    ]);
  });

  it.each([
    ['no record', `${TRACKING_MARKER}\nhello`],
    ['bad base64 JSON', `${TRACKING_MARKER}\n<!-- issueloop:record not_json -->`],
    ['wrong shape', `<!-- issueloop:record ${Buffer.from('{"version":2}').toString('base64url')} -->`],
    [
      'negative count',
      `<!-- issueloop:record ${Buffer.from(JSON.stringify({ ...record(), failure_count: -1 })).toString('base64url')} -->`,
    ],
    [
      'two records',
      `<!-- issueloop:record ${Buffer.from(JSON.stringify(record())).toString('base64url')} -->\n<!-- issueloop:record ${Buffer.from(JSON.stringify(record())).toString('base64url')} -->`,
    ],
    ['oversized', `<!-- issueloop:record ${'A'.repeat(200_000)} -->`],
  ])('a tampered body (%s) yields no record and never throws', (_name, body) => {
    expect(parseTrackingRecord(body)).toBeUndefined();
  });

  it('only a marker on its own line marks a tracking comment', () => {
    expect(isTrackingComment(`quoting: ${TRACKING_MARKER} in a sentence`)).toBe(false);
  });
});
