import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../../src/core/redact.js';
import { liveMentions } from '../../../src/emulators/github/index.js';
import { answerThreads, type FollowUp } from '../../../src/sources/issues/follow-up.js';

/** A follow-up answering one thread and one review's body on PR #7. */
const followUp = {
  pull: { number: 7 },
  failures: [],
  reviews: [
    { kind: 'thread', threadId: 'T1', path: 'a.js', line: 1, diffHunk: '', comments: [], leftOut: 0 },
    { kind: 'review', reviewId: 9, author: 'maint', body: 'Please change it.' },
  ],
} as unknown as FollowUp;

async function answered(filesChanged: string[], redact = (text: string) => text) {
  const posted: string[] = [];
  const threads = {
    reply: async (_thread: string, body: string) => {
      posted.push(body);
    },
    comment: async (_pull: number, body: string) => {
      posted.push(body);
    },
    resolve: async () => {},
  };
  const result = await answerThreads(threads, followUp, {
    commit: 'abcdef0123456789',
    filesChanged,
    resolve: false,
    redact,
  });
  return { posted, result };
}

describe('answerThreads: what issueloop writes in review threads and on the PR conversation', () => {
  it('regression: a file name with blank lines and @team stays inside its code span and pings nobody', async () => {
    const file = 'notes\n\n@acme/team please merge\r\n\u2028x.md';
    const { posted, result } = await answered(['greet.js', file]);
    expect(result).toEqual({ threads: 1, reviews: 1, failed: 0 });
    for (const body of posted) {
      expect(body).not.toMatch(/[\n\r\u2028]/);
      expect(body).toContain('`notes␊␊@acme/team please merge␍␊\u2424x.md`');
      expect(liveMentions(body)).toEqual([]);
    }
  });

  it('a file name with backticks cannot close its span early', async () => {
    const { posted } = await answered(['a`` @team ``b.md']);
    expect(posted[0]).toContain('```a`` @team ``b.md```');
    expect(liveMentions(posted[0] ?? '')).toEqual([]);
  });

  it('redacts a percent-encoded secret in a file name', async () => {
    const secret = 'zz-0123456789abcdef-token';
    const encoded = [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const { posted } = await answered([`leak-${encoded}.txt`], createRedactor([secret]));
    expect(posted[0]).toContain(`leak-${REDACTED}.txt`);
  });
});
