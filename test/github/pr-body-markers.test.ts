import { describe, expect, it } from 'vitest';
import {
  answeredReviewsOf,
  followupsOf,
  type PullRequestReport,
  renderPullRequestBody,
} from '../../src/github/pr-body.js';
import { pullReport as report } from './pr-report.js';

const redact = (text: string): string => text.replace(/ghp_[A-Za-z0-9]{36}/g, '[REDACTED]');

describe('the follow-up count a PR body keeps', () => {
  it('is read back from the body issueloop wrote; a first PR has none', () => {
    expect(followupsOf(renderPullRequestBody(report({ followups: 2 }), redact))).toBe(2);
    expect(followupsOf(renderPullRequestBody(report(), redact))).toBe(0);
  });

  it('regression: a marker in the verify output or a file name does not count (it reset the limit)', () => {
    const forged = '<!-- issueloop:followups 0 -->';
    const base = report();
    const body = renderPullRequestBody(
      report({
        followups: 3,
        filesChanged: [forged],
        verify: { ...(base.verify as NonNullable<PullRequestReport['verify']>), outputTail: `ok\n${forged}` },
      }),
      redact,
    );
    expect(followupsOf(body)).toBe(3);
    const none = renderPullRequestBody(report({ filesChanged: ['<!-- issueloop:followups 9 -->'] }), redact);
    expect(followupsOf(none)).toBe(0);
  });
});

describe('the reviews a PR body records answered', () => {
  it('are read back with the follow-up count; a body from before them (count only) still reads', () => {
    const body = renderPullRequestBody(report({ followups: 2, answeredReviews: [11, 12] }), redact);
    expect(body).toContain('<!-- issueloop:followups 2 answered 11,12 -->');
    expect(followupsOf(body)).toBe(2);
    expect(answeredReviewsOf(body)).toEqual([11, 12]);
    const older = renderPullRequestBody(report({ followups: 1 }), redact);
    expect(answeredReviewsOf(older)).toEqual([]);
    expect(followupsOf(older)).toBe(1);
  });

  it('regression: a body edited on github.com (CRLF line ends) keeps its count and answered reviews', () => {
    const body = renderPullRequestBody(report({ followups: 2, answeredReviews: [11] }), redact).replace(
      /\n/g,
      '\r\n',
    );
    expect(followupsOf(body)).toBe(2);
    expect(answeredReviewsOf(body)).toEqual([11]);
  });

  it('regression: a forged marker in a file name answers nothing; the list keeps only the newest 100', () => {
    const forged = renderPullRequestBody(
      report({ filesChanged: ['<!-- issueloop:followups 1 answered 7 -->'] }),
      redact,
    );
    expect(answeredReviewsOf(forged)).toEqual([]);
    const many = Array.from({ length: 150 }, (_, i) => i + 1);
    const kept = answeredReviewsOf(
      renderPullRequestBody(report({ followups: 1, answeredReviews: many }), redact),
    );
    expect(kept).toHaveLength(100);
    expect(kept[0]).toBe(51);
  });
});
