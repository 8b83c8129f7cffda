import { describe, expect, it } from 'vitest';
import { type ParsedMessagesRequest, reply } from '../../src/emulators/anthropic/index.js';
import { PLAN_LABEL } from '../../src/github/labels.js';
import { planMarker } from '../../src/github/plan-comment.js';
import { memberIssue } from '../helpers/world.js';
import { fixTypo, useActionRuns } from './act.js';
import { commentPayload, labeledPayload } from './action-fixture.js';

/**
 * `/approve` as the action sees it (issue 32 items 2 and 3): an `issue_comment` event with a writer's
 * `/approve` on an issue whose plan waits gets its 👍 and the issue worked in the same job into a
 * draft PR; an outsider's `/approve` event does nothing at all.
 */
const { run, act } = useActionRuns();

const PLAN = 'Plan: fix the typo in greet.js; check with grep.';

/** Plan sessions answer with the plan; the implementation fixes the typo. */
function scripted() {
  const firsts: string[] = [];
  const script = (request: ParsedMessagesRequest) => {
    const text = JSON.stringify(request.messages[0]?.content ?? '');
    if (request.messages.length === 1) firsts.push(text);
    if (text.includes('## Write a plan')) return reply.text(PLAN);
    return request.messages.length > 1 ? reply.text('Fixed the greeting.') : fixTypo;
  };
  return { script, firsts };
}

describe('the action: /approve on a waiting plan', () => {
  it("a writer's /approve event: a 👍 and the plan worked into a draft PR; an outsider's: nothing", {
    timeout: 60_000,
  }, async () => {
    const gh = run.github;
    gh.setPermission('maintainer', 'maintain');
    gh.addUser('drive-by');
    gh.setPermission('drive-by', 'read');
    const issue = gh.addIssue(memberIssue('Greeting typo', { labels: ['issueloop', PLAN_LABEL] }));
    const { script, firsts } = scripted();
    const plans = () =>
      gh
        .comments(issue)
        .filter((c) => c.user.login === 'issueloop-bot' && c.body.startsWith(planMarker(issue)));

    // The trigger label: a plan session, its plan posted, no PR.
    const label = labeledPayload({
      number: issue,
      title: 'Greeting typo',
      label: 'issueloop',
      sender: 'maintainer',
    });
    const planned = await act({ event: 'issues', payload: label, script });
    expect(planned.code).toBe(0);
    expect(plans().map((c) => c.body)).toEqual([expect.stringContaining(PLAN)]);
    expect(firsts).toHaveLength(1);
    expect(gh.pulls()).toEqual([]);

    // An outsider's /approve: no reaction, no session, no PR, a green run.
    const outsiderId = gh.addComment(issue, { author: 'drive-by', body: '/approve' });
    const outsider = await act({
      event: 'issue_comment',
      payload: commentPayload({ number: issue, comment: outsiderId, body: '/approve', sender: 'drive-by' }),
      script,
    });
    expect(outsider.code).toBe(0);
    expect(outsider.core.notices).toContainEqual(
      expect.stringContaining(
        'the command was given by drive-by, whose permission on the repository is "read"',
      ),
    );
    expect(gh.reactions(outsiderId)).toEqual([]);
    expect(outsider.anthropic.requests).toHaveLength(0);
    expect(firsts).toHaveLength(1);
    expect(gh.pulls()).toEqual([]);

    // A writer's /approve: its 👍, and the implementation, told the plan, opens a draft PR.
    const approveId = gh.addComment(issue, { author: 'maintainer', body: '/approve' });
    const approved = await act({
      event: 'issue_comment',
      payload: commentPayload({ number: issue, comment: approveId, body: '/approve', sender: 'maintainer' }),
      script,
    });
    expect(approved.code).toBe(0);
    expect(approved.core.failed).toEqual([]);
    expect(gh.reactions(approveId)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect(firsts).toHaveLength(2);
    expect(firsts[1]).toContain('## The approved plan');
    expect(firsts[1]).toContain(PLAN);
    expect(approved.core.outputs.outcome).toBe('resolved');
    expect(gh.pulls().map((p) => [p.head.ref, p.draft])).toEqual([[`issueloop/issue-${issue}`, true]]);
  });
});
