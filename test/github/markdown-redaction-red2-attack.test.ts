import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import { renderedText } from '../../src/emulators/github/rendered-text.js';
import { type PullRequestReport, renderPullRequestBody } from '../../src/github/pr-body.js';
import { emptyTrackingRecord, renderTrackingComment } from '../../src/github/tracking-comment.js';
import { pullReport } from './pr-report.js';

/**
 * Red team, round 2, against the Markdown-aware redaction (rendered-view.ts `markdown`): markup the
 * view does not read still renders the secret contiguously on GitHub. The emulator's renderer
 * (rendered-text.ts) is the oracle: it reads `_` emphasis and link brackets as GitHub does.
 */
const SECRET = 'zz-0123456789abcdef-token';
/** An Anthropic key's shape: caught by the built-in token pattern when written plainly. */
const KEY = 'sk-ant-api03-abcdefghijklmnop';
const redact = createRedactor([SECRET]);

const report = (summary: string): PullRequestReport => pullReport({ summary });

function trackingComment(lastFailure: string): string {
  return renderTrackingComment(
    { phase: 'failed', attempt: 1, lastFailure, record: emptyTrackingRecord('2026-11-21T12:00:00.000Z') },
    redact,
  );
}

describe('red2: underscore emphasis next to a secret’s punctuation renders it in clear', () => {
  // CommonMark: `_` after `-` and before a letter opens emphasis (left-flanking, preceded by
  // punctuation); `_` before `-` or at the end closes it. GitHub shows `zz-0123…-token` with `token`
  // in italics, and a copy gives the secret back. Only `_` between two letters is left as it is.
  const hidden = [`zz-0123456789abcdef-_token_`, `zz-_0123456789abcdef_-token`];

  it('red2-underscore-emphasis: in the PR summary', () => {
    for (const text of hidden) {
      const body = renderPullRequestBody(report(`Done. Key: ${text}`), redact);
      expect(renderedText(body).text).toContain('Done. Key: REDACTED');
      expect(renderedText(body).text).not.toContain(SECRET);
    }
  });

  it('red2-underscore-emphasis: in the tracking comment (which escapes [ ] < & ` \\ but not _)', () => {
    for (const text of hidden) {
      const shown = renderedText(trackingComment(`failed: ${text}`)).text;
      expect(shown).toContain('failed: [REDACTED]');
      expect(shown).not.toContain(SECRET);
    }
  });

  it('red2-underscore-emphasis: an Anthropic key as sk-_ant_-api03-… passes the built-in token pattern', () => {
    const body = renderPullRequestBody(report(`key sk-_ant_-api03-abcdefghijklmnop here`), redact);
    expect(renderedText(body).text).toMatch(/key REDACTED\S* here/);
    expect(renderedText(body).text).not.toContain(KEY);
  });
});

describe('red2: link brackets between a secret’s letters render it in clear', () => {
  it('red2-reference-link: zz-01[23]45… with a link definition [23]: … renders the link text in line', () => {
    // `[23]` is a shortcut reference link once `[23]: <url>` is defined anywhere in the body: GitHub
    // shows "23" as a link between "zz-01" and "456…", the brackets gone. (An inline link,
    // `[23](https://example.invalid/)`, renders the same; the oracle does not read destinations.)
    const summary = `Done. Key: zz-01[23]456789abcdef-token\n\n[23]: https://example.invalid/`;
    const body = renderPullRequestBody(report(summary), redact);
    expect(renderedText(body).text).toContain('Done. Key: REDACTED');
    expect(renderedText(body).text).not.toContain(SECRET);
  });
});
