import { describe, expect, it } from 'vitest';
import { BASE, call, graphql, REPO } from './emulator-fixtures.js';
import { REPLY, RESOLVE, THREADS, type ThreadsData, withReviewedOrigin } from './review-fixtures.js';

const { origin, head, reviewed } = withReviewedOrigin();

describe('reviews over REST', () => {
  it('lists reviews and review comments in GitHub’s shape, with the real diff hunk', async () => {
    const { emulator, number, review, root, reply } = await reviewed();
    const reviews = await call<Array<Record<string, unknown>>>(
      emulator,
      'GET',
      `${REPO}/pulls/${number}/reviews`,
    );
    expect(reviews.json).toHaveLength(2);
    expect(reviews.json[0]).toMatchObject({
      id: review.reviewId,
      user: { login: 'alice' },
      body: 'Not so loud.',
      state: 'CHANGES_REQUESTED',
      submitted_at: '2026-11-21T12:31:00Z',
      commit_id: head(),
      author_association: 'COLLABORATOR',
      html_url: `https://github.test/octo-org/widgets/pull/${number}#pullrequestreview-${review.reviewId}`,
    });
    // A reply is a review of its own, as GitHub files it.
    expect(reviews.json[1]).toMatchObject({ user: { login: 'octocat' }, state: 'COMMENTED', body: '' });

    const comments = await call<Array<Record<string, unknown>>>(
      emulator,
      'GET',
      `${REPO}/pulls/${number}/comments`,
    );
    expect(comments.json[0]).toMatchObject({
      id: root,
      pull_request_review_id: review.reviewId,
      path: 'world.txt',
      line: 3,
      original_line: 3,
      side: 'RIGHT',
      diff_hunk: '@@ -1,5 +1,5 @@\n one\n two\n-three\n+THREE',
      body: 'Why shout?',
      user: { login: 'alice' },
      commit_id: head(),
      url: `${BASE}${REPO}/pulls/comments/${root}`,
    });
    expect(comments.json[0]).not.toHaveProperty('in_reply_to_id');
    expect(comments.json[1]).toMatchObject({ id: reply, in_reply_to_id: root, body: 'Emphasis.' });
  });

  it('replies as the token’s user (201), in the thread of a reply too; 404 and 422 otherwise', async () => {
    const { emulator, advance, number, root, reply } = await reviewed();
    advance(60_000);
    const created = await call<Record<string, unknown>>(
      emulator,
      'POST',
      `${REPO}/pulls/${number}/comments/${reply}/replies`,
      { body: { body: 'Fixed in the next push.' } },
    );
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      in_reply_to_id: root,
      user: { login: 'issueloop-bot' },
      body: 'Fixed in the next push.',
      path: 'world.txt',
      created_at: '2026-11-21T12:32:00Z',
    });
    expect(emulator.pulls()[0]?.updated_at).toBe('2026-11-21T12:32:00Z');
    const missing = await call(emulator, 'POST', `${REPO}/pulls/${number}/comments/424242/replies`, {
      body: { body: 'x' },
    });
    expect(missing.status).toBe(404);
    const empty = await call(emulator, 'POST', `${REPO}/pulls/${number}/comments/${root}/replies`, {
      body: {},
    });
    expect(empty.status).toBe(422);
  });
});

describe('review threads over GraphQL', () => {
  it('shows the PR and its threads, resolves one and replies in it', async () => {
    const { emulator, number, root, reply, threads } = await reviewed();
    const before = await threads();
    const pull = before.data.repository.pullRequest;
    expect(pull).toMatchObject({
      number,
      state: 'OPEN',
      merged: false,
      mergeable: 'MERGEABLE',
      headRefName: 'feature',
      headRefOid: head(),
      baseRefName: 'main',
      isDraft: false,
      reviewDecision: 'CHANGES_REQUESTED',
    });
    expect(pull.reviewThreads).toMatchObject({ totalCount: 1, pageInfo: { hasNextPage: false } });
    const [thread] = pull.reviewThreads.nodes;
    expect(thread).toMatchObject({ isResolved: false, isOutdated: false, path: 'world.txt', line: 3 });
    expect(thread?.comments.nodes).toEqual([
      expect.objectContaining({
        databaseId: root,
        body: 'Why shout?',
        author: { login: 'alice' },
        replyTo: null,
      }),
      expect.objectContaining({
        databaseId: reply,
        authorAssociation: 'NONE',
        replyTo: { databaseId: root },
      }),
    ]);

    emulator.resetRequests();
    const resolved = await graphql(emulator, RESOLVE, { thread: thread?.id });
    expect(resolved.json).toEqual({
      data: { resolveReviewThread: { thread: { id: thread?.id, isResolved: true } } },
    });
    const answered = await graphql<{
      data: { addPullRequestReviewThreadReply: { comment: { databaseId: number } } };
    }>(emulator, REPLY, { thread: thread?.id, body: 'Done.' });
    const added = answered.json.data.addPullRequestReviewThreadReply.comment;
    expect(added).toMatchObject({ body: 'Done.', id: expect.stringMatching(/^PRRC_/) });
    expect(emulator.requests.map((r) => [r.method, r.path, r.operationName, r.charged])).toEqual([
      ['POST', '/graphql', 'Resolve', true],
      ['POST', '/graphql', 'Reply', true],
    ]);
    const rest = await call<Array<{ id: number; in_reply_to_id?: number; user: { login: string } }>>(
      emulator,
      'GET',
      `${REPO}/pulls/${number}/comments`,
    );
    expect(rest.json.at(-1)).toMatchObject({
      id: added.databaseId,
      in_reply_to_id: root,
      user: { login: 'issueloop-bot' },
    });

    const after = (await threads()).data.repository.pullRequest;
    expect(after.reviewThreads.nodes[0]?.isResolved).toBe(true);
    expect(after.reviewThreads.nodes[0]?.comments.nodes).toHaveLength(3);
    emulator.addReview(number, { author: 'alice', state: 'APPROVED' });
    expect((await threads()).data.repository.pullRequest.reviewDecision).toBe('APPROVED');
  });

  it('lists the reviews of a PR, filtered by state as GitHub does, with their own bodies', async () => {
    const { emulator, number, review } = await reviewed();
    emulator.addReview(number, { author: 'alice', state: 'APPROVED', body: 'Fine now.' });
    const query = `query R($owner: String!, $name: String!, $number: Int!) {
      repository(owner: $owner, name: $name) { pullRequest(number: $number) {
        all: reviews(first: 10) { totalCount }
        asked: reviews(first: 10, states: [CHANGES_REQUESTED]) { nodes { databaseId body state author { login } submittedAt } }
      } } }`;
    const answer = await graphql<{
      data: { repository: { pullRequest: { all: { totalCount: number }; asked: { nodes: unknown[] } } } };
    }>(emulator, query, { owner: 'octo-org', name: 'widgets', number });
    const pull = answer.json.data.repository.pullRequest;
    // octocat's reply is a COMMENTED review of its own, as on GitHub.
    expect(pull.all.totalCount).toBe(3);
    expect(pull.asked.nodes).toEqual([
      {
        databaseId: review.reviewId,
        body: 'Not so loud.',
        state: 'CHANGES_REQUESTED',
        author: { login: 'alice' },
        submittedAt: expect.any(String),
      },
    ]);
  });

  it('pages threads, and marks a thread outdated once its file changes (line null)', async () => {
    const { emulator, number, threads } = await reviewed();
    emulator.addReview(number, {
      author: 'alice',
      state: 'COMMENTED',
      comments: [{ path: 'world.txt', line: 1, body: 'Hm' }],
    });
    const first = await graphql<ThreadsData>(
      emulator,
      THREADS.replace('first: 50, after', 'first: 1, after'),
      {
        owner: 'octo-org',
        name: 'widgets',
        number,
      },
    );
    const page = first.json.data.repository.pullRequest.reviewThreads;
    expect(page).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: true } });
    await origin().commitOn('feature', { 'world.txt': 'one\ntwo\nthree!\nfour\nfive\n' }, 'Calmer');
    const later = (await threads()).data.repository.pullRequest.reviewThreads.nodes;
    expect(later.map((t) => [t.isOutdated, t.line])).toEqual([
      [true, null],
      [true, null],
    ]);
    const rest = await call<Array<{ line: number | null; original_line: number }>>(
      emulator,
      'GET',
      `${REPO}/pulls/${number}/comments`,
    );
    expect(rest.json[0]).toMatchObject({ line: null, original_line: 3 });
  });

  it('says MERGED, and answers NOT_FOUND for another repository or PR number', async () => {
    const { emulator, number, threads } = await reviewed();
    emulator.mergePull(number, 'alice');
    expect((await threads()).data.repository.pullRequest).toMatchObject({
      state: 'MERGED',
      merged: true,
      mergeable: 'UNKNOWN',
    });
    const other = await graphql(emulator, THREADS, { owner: 'octo-org', name: 'gadgets', number });
    expect(other.json).toMatchObject({
      data: { repository: null },
      errors: [
        { type: 'NOT_FOUND', message: "Could not resolve to a Repository with the name 'octo-org/gadgets'." },
      ],
    });
    const none = await graphql(emulator, THREADS, { owner: 'octo-org', name: 'widgets', number: 999 });
    expect(none.json).toMatchObject({
      errors: [{ type: 'NOT_FOUND', message: 'Could not resolve to a PullRequest with the number of 999.' }],
    });
  });
});
