import { describe, expect, it } from 'vitest';
import { MAX_COMMENT_PAGES } from '../../../src/github/thread-comments.js';
import { useFollowFixture } from './follow-fixture.js';

const resolvedPull = useFollowFixture();

/** A PR with a review thread: `maint` (write access) and `stranger` (none) as given, in order. */
async function threadOf(authors: ReadonlyArray<'maint' | 'stranger'>) {
  const fixture = await resolvedPull();
  const { emulator, pr } = fixture;
  emulator.addUser('maint');
  emulator.setPermission('maint', 'write');
  emulator.addUser('stranger');
  const [rootAuthor = 'maint', ...replies] = authors;
  const { commentIds } = emulator.addReview(pr.number, {
    author: rootAuthor,
    state: rootAuthor === 'maint' ? 'CHANGES_REQUESTED' : 'COMMENTED',
    comments: [{ path: 'greet.js', line: 1, body: `${rootAuthor} 0` }],
  });
  const root = commentIds[0] as number;
  replies.forEach((author, i) => {
    const body = author === 'maint' ? `maint ${i + 1}: please rename greet to hello` : `stranger ${i + 1}`;
    emulator.addReviewReply(pr.number, root, { author, body });
  });
  emulator.resetRequests();
  return fixture;
}

const graphqlRequests = (requests: ReadonlyArray<{ path: string }>) =>
  requests.filter((r) => r.path.endsWith('/graphql')).length;

describe('regression: the buried thread (outsider replies pushed a writer’s comment out of the last 20)', () => {
  it("a maintainer's comment followed by 25 outsider replies starts the follow-up, and is in its first message", async () => {
    const { sweep } = await threadOf(['maint', ...Array<'stranger'>(25).fill('stranger')]);
    const { followUp, message } = await sweep();
    expect(followUp?.reviews).toHaveLength(1);
    expect(message).toContain('REVIEW THREAD 1: greet.js:1');
    expect(message).toContain('- maint: maint 0');
    // Outsiders are never shown, only counted.
    expect(message).not.toContain('stranger 1');
    expect(message).toContain('25 comment(s) from people without write access left out');
  });

  it('a thread of 150 comments: read whole (one more query), the writer in the middle is seen', async () => {
    const authors = Array<'maint' | 'stranger'>(150).fill('stranger');
    authors[60] = 'maint';
    const { sweep, gh, pr, emulator } = await threadOf(authors);
    const read = await gh.adapter.reviewThreads.read(pr.number);
    expect(read.threads[0]?.comments).toHaveLength(150);
    expect(read.threads[0]?.comments.map((c) => c.body.split(':')[0])).toContain('maint 60');
    // The PR's query, then the thread's second page of 100.
    expect(graphqlRequests(emulator.requests)).toBe(2);
    const { followUp, message } = await sweep();
    expect(followUp?.reviews).toHaveLength(1);
    expect(message).toContain('- maint: maint 60: please rename greet to hello');
    expect(message).toContain('149 comment(s) from people without write access left out');
    expect(message).not.toMatch(/stranger \d/);
  });

  it('outsiders alone, however many, never start a follow-up', async () => {
    const { sweep, emulator, ledger } = await threadOf(Array<'stranger'>(130).fill('stranger'));
    expect((await sweep()).followUp).toBeUndefined();
    // It was read and judged: the thread's author was asked about, and the PR left green.
    expect(emulator.requests.some((r) => r.path.endsWith('/collaborators/stranger/permission'))).toBe(true);
    expect(ledger).toContainEqual([
      'pull_request',
      expect.objectContaining({ state: 'open', decision: 'green' }),
    ]);
  });

  it(`past ${MAX_COMMENT_PAGES} pages its end is still read (the latest writer), and the unread middle counted`, async () => {
    const total = MAX_COMMENT_PAGES * 100 + 150;
    const authors = Array<'maint' | 'stranger'>(total).fill('stranger');
    authors[total - 1] = 'maint';
    const { gh, pr, emulator } = await threadOf(authors);
    const read = await gh.adapter.reviewThreads.read(pr.number);
    const thread = read.threads[0];
    expect(thread?.comments.at(-1)?.body).toBe(`maint ${total - 1}: please rename greet to hello`);
    expect(thread?.unread).toBe(50);
    expect(thread?.comments).toHaveLength(total - 50);
    // The PR's query, 19 further pages from the start, and the last page.
    expect(graphqlRequests(emulator.requests)).toBe(MAX_COMMENT_PAGES + 1);
    expect(
      gh.log.some((e) => e.level === 'warn' && e.msg?.includes('comments: 50 in the middle left unread')),
    ).toBe(true);
  });
});

describe('regression: a change request behind many reviews or threads (a page of 100 reviews, 500 threads)', () => {
  async function crowded() {
    const fixture = await resolvedPull();
    fixture.emulator.addUser('maint');
    fixture.emulator.setPermission('maint', 'write');
    fixture.emulator.addUser('stranger');
    return fixture;
  }

  it("a maintainer's change request after 150 outsider approvals is worked", async () => {
    const { emulator, pr, sweep } = await crowded();
    for (let i = 0; i < 150; i++)
      emulator.addReview(pr.number, { author: 'stranger', state: 'APPROVED', body: `lgtm ${i}` });
    emulator.addReview(pr.number, {
      author: 'maint',
      state: 'CHANGES_REQUESTED',
      body: 'Rename greet to hello.',
    });
    const { followUp, message } = await sweep();
    expect(followUp?.reviews.map((r) => r.kind)).toEqual(['review']);
    expect(message).toContain(
      'REVIEW by maint (changes requested), about the whole pull request:\nRename greet to hello.',
    );
  });

  it('past 1,000 reviews the newest are read too, and the unread middle counted', async () => {
    const { emulator, pr, gh } = await crowded();
    for (let i = 0; i < 1_149; i++)
      emulator.addReview(pr.number, { author: 'stranger', state: 'APPROVED', body: `lgtm ${i}` });
    emulator.addReview(pr.number, {
      author: 'maint',
      state: 'CHANGES_REQUESTED',
      body: 'Rename greet to hello.',
    });
    emulator.resetRequests();
    const read = await gh.adapter.reviewThreads.read(pr.number);
    expect(read.changeRequests.map((r) => r.author)).toEqual(['maint']);
    // The PR's query, 9 more pages of reviews, the newest 100.
    expect(graphqlRequests(emulator.requests)).toBe(11);
    expect(
      gh.log.some(
        (e) => e.msg === `#${pr.number} has more reviews than are read: 50 in the middle left unread`,
      ),
    ).toBe(true);
  });

  it("a maintainer's thread after 520 outsider threads is worked (the newest threads are read past 500)", async () => {
    const { emulator, pr, sweep } = await crowded();
    const line = { path: 'greet.js', line: 1 };
    for (let i = 0; i < 520; i++) {
      emulator.addReview(pr.number, {
        author: 'stranger',
        state: 'COMMENTED',
        comments: [{ ...line, body: `spam ${i}` }],
      });
    }
    emulator.addReview(pr.number, {
      author: 'maint',
      state: 'COMMENTED',
      comments: [{ ...line, body: 'Rename greet.' }],
    });
    emulator.resetRequests();
    const { followUp, message } = await sweep();
    expect(followUp?.reviews).toHaveLength(1);
    expect(message).toContain('- maint: Rename greet.');
    expect(message).not.toContain('spam');
  });
});
