import { describe, expect, it } from 'vitest';
import { liveMentions } from '../../src/emulators/github/rendered-text.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { BASE } from '../github/emulated.js';
import { MENTIONING_NAME } from './agent-script.js';
import { roundsFixture } from './rounds-fixture.js';

/**
 * Issue 29, item 6, through a follow-up on the emulator: a reviewer asks for changes in a thread; the
 * follow-up's agent creates a file whose name holds blank lines and `@acme/team`. issueloop's reply in
 * the thread names the file, and the name neither breaks out of its code span (a raw newline ends
 * it) nor mentions the team.
 */
const { repo, resolvedWithRealRefs } = roundsFixture();

interface ReviewComment {
  body: string;
  in_reply_to_id?: number;
  user: { login: string };
}

describe("issueloop's reply in a review thread", () => {
  it('regression: a file named with blank lines and @acme/team by the follow-up agent leaves no live mention and no raw newline in the reply', {
    timeout: 60_000,
  }, async () => {
    const { emulator, ctx, newSource, issue, pr, branch } = await resolvedWithRealRefs();
    emulator.addUser('maint');
    emulator.setPermission('maint', 'write');
    const review = emulator.addReview(pr.number, {
      author: 'maint',
      state: 'CHANGES_REQUESTED',
      comments: [{ path: 'greet.js', line: 1, body: 'Please name-a-file-with-mentions for the notes.' }],
    });
    const second = await runRounds({ ...ctx, source: newSource() }, { owner: 'host:2', maxRounds: 2 });
    expect(second.reports.map((r) => [r.issue, r.outcome])).toEqual([[issue, 'resolved']]);
    // The file, named as the agent named it, is on the PR's branch.
    const files = repo.fx.git(repo.fx.origin, 'ls-tree', '-r', '-z', '--name-only', branch).split('\0');
    expect(files).toContain(MENTIONING_NAME);

    const answer = await emulator.fetch(`${BASE}/repos/octo-org/widgets/pulls/${pr.number}/comments`, {
      headers: { authorization: 'bearer ghp_emulator' },
    });
    const comments = (await answer.json()) as ReviewComment[];
    const replies = comments.filter((c) => c.in_reply_to_id === review.commentIds[0]);
    expect(replies).toHaveLength(1);
    const reply = replies[0]?.body ?? '';
    // The reply names the change, the name's newlines made visible (␊): one line, then the marker.
    const head = repo.fx.git(repo.fx.origin, 'rev-parse', branch).slice(0, 12);
    expect(reply.split('\n')).toEqual([
      `Addressed in ${head}, changing \`notes␊␊@acme/team have a look␊␊.md\`.`,
      '',
      '<!-- issueloop:reply -->',
    ]);
    expect(liveMentions(reply)).toEqual([]);
    // The emulator's judge reads a mention where there is one: the check above can fail.
    expect(liveMentions(`changing \`notes\n\n@acme/team have a look\n\n.md\``)).toEqual(['acme/team']);
  });
});
