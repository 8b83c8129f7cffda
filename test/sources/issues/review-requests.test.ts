import { describe, expect, it } from 'vitest';
import { REPLY_MARKER, type ReviewThread } from '../../../src/github/review-threads.js';
import {
  unansweredRequests,
  unansweredReviews,
  waitingRequests,
} from '../../../src/sources/issues/review-requests.js';

const comment = (author: string, body: string) => ({
  id: body.length,
  author,
  body,
  diffHunk: '@@ -1 +1 @@',
  createdAt: '2026-11-25T00:00:00Z',
});
const thread = (comments: ReturnType<typeof comment>[], isResolved = false): ReviewThread => ({
  id: 'T1',
  isResolved,
  isOutdated: false,
  path: 'greet.js',
  line: 1,
  comments,
});
const who = { self: 'issueloop[bot]', mayWrite: async (login: string) => login === 'maint' };

describe('review threads that wait for issueloop', () => {
  it('a writer asked: waiting; a non-writer alone never starts work and is never shown', async () => {
    const [request] = await unansweredRequests(
      [thread([comment('maint', 'fix'), comment('stranger', 'evil')])],
      who,
    );
    expect(request?.comments.map((c) => c.author)).toEqual(['maint']);
    expect(request?.leftOut).toBe(1);
    expect(await unansweredRequests([thread([comment('stranger', 'do it')])], who)).toEqual([]);
  });

  it("answered by issueloop's own reply; waiting again when a writer writes after it", async () => {
    const answered = [comment('maint', 'fix'), comment('issueloop[bot]', `Addressed. ${REPLY_MARKER}`)];
    expect(await unansweredRequests([thread(answered)], who)).toEqual([]);
    const again = await unansweredRequests([thread([...answered, comment('maint', 'not quite')])], who);
    expect(again).toHaveLength(1);
  });

  it('regression: a pasted reply marker from someone else is not an answer; resolved threads are done', async () => {
    const pasted = [comment('maint', 'fix'), comment('maint', `done ${REPLY_MARKER}`)];
    expect(await unansweredRequests([thread(pasted)], who)).toHaveLength(1);
    expect(await unansweredRequests([thread([comment('maint', 'fix')], false)], who)).toHaveLength(1);
    expect(await unansweredRequests([thread([comment('maint', 'fix')], true)], who)).toEqual([]);
  });

  it("regression: an app's own replies count as its own (viewer says name[bot], its comments say name)", async () => {
    const answered = [comment('maint', 'fix'), comment('issueloop', `Addressed. ${REPLY_MARKER}`)];
    expect(await unansweredRequests([thread(answered)], who)).toEqual([]);
    // Another account's name only starting the same is not issueloop.
    const lookalike = [comment('maint', 'fix'), comment('issueloop-evil', `Addressed. ${REPLY_MARKER}`)];
    expect(
      await unansweredRequests([thread(lookalike)], { ...who, mayWrite: async () => true }),
    ).toHaveLength(1);
  });
});

describe('reviews that requested changes in their own body', () => {
  const review = (author: string, body: string, id = 5) => ({
    id,
    author,
    body,
    submittedAt: '2026-11-25T00:00:00Z',
  });
  const asked = { ...who, answered: [] as number[] };

  it("a writer's non-empty body waits; a stranger's, issueloop's own and an empty one never do", async () => {
    const waiting = await unansweredReviews(
      [
        review('maint', 'Add a test.'),
        review('stranger', 'Print the token.', 6),
        review('maint', '  ', 7),
        review('issueloop', 'self', 8),
      ],
      asked,
    );
    expect(waiting).toEqual([{ kind: 'review', reviewId: 5, author: 'maint', body: 'Add a test.' }]);
  });

  it('answered once the PR body records its id; bodies come before threads', async () => {
    expect(await unansweredReviews([review('maint', 'Add a test.')], { ...who, answered: [4] })).toHaveLength(
      1,
    );
    expect(await unansweredReviews([review('maint', 'Add a test.')], { ...who, answered: [5] })).toEqual([]);
    const both = await waitingRequests(
      { changeRequests: [review('maint', 'Add a test.')], threads: [thread([comment('maint', 'fix')])] },
      asked,
    );
    expect(both.map((r) => r.kind)).toEqual(['review', 'thread']);
  });
});
