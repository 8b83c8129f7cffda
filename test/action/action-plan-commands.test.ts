import { describe, expect, it } from 'vitest';
import { type ParsedMessagesRequest, reply } from '../../src/emulators/anthropic/index.js';
import { PLAN_LABEL } from '../../src/github/labels.js';
import { planMarker } from '../../src/github/plan-comment.js';
import { memberIssue } from '../helpers/world.js';
import { fixTypo, useActionRuns } from './act.js';
import { commentPayload, labeledPayload } from './action-fixture.js';

/**
 * `/revise` and `/approve` as the action sees them (issue 32 items 2 and 3): an `issue_comment` event
 * with a writer's `/revise` gets its 👍 and a new plan; a writer's `/approve` on an issue whose plan
 * waits gets its 👍 and the issue worked in the same job into a draft PR; an outsider's `/approve`
 * event does nothing at all.
 */
const { run, act } = useActionRuns();

const PLAN = 'Plan: fix the typo in greet.js; check with grep.';
const REVISED = 'Plan B: fix the typo in greet.js and add a test for it.';

/** Plan sessions answer with the plan; the implementation fixes the typo. */
function scripted() {
  const firsts: string[] = [];
  const script = (request: ParsedMessagesRequest) => {
    const text = JSON.stringify(request.messages[0]?.content ?? '');
    if (request.messages.length === 1) firsts.push(text);
    if (text.includes('## Write a revised plan')) return reply.text(REVISED);
    if (text.includes('## Write a plan')) return reply.text(PLAN);
    return request.messages.length > 1 ? reply.text('Fixed the greeting.') : fixTypo;
  };
  return { script, firsts };
}

describe('the action: /revise and /approve on a waiting plan', () => {
  it("a writer's /revise event: a new plan; a writer's /approve event: a 👍 and the plan worked into a draft PR; an outsider's: nothing", {
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

    // A writer's /revise: its 👍, and a new plan from the old one and the request; still no PR.
    const reviseId = gh.addComment(issue, { author: 'maintainer', body: '/revise add a test' });
    const revised = await act({
      event: 'issue_comment',
      payload: commentPayload({
        number: issue,
        comment: reviseId,
        body: '/revise add a test',
        sender: 'maintainer',
      }),
      script,
    });
    expect(revised.code).toBe(0);
    expect(gh.reactions(reviseId)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect(firsts).toHaveLength(2);
    expect(firsts[1]).toContain('## Write a revised plan');
    expect(firsts[1]).toContain(PLAN);
    expect(firsts[1]).toContain('add a test');
    expect(plans().map((c) => c.body)).toEqual([
      expect.stringContaining(PLAN),
      expect.stringContaining(REVISED),
    ]);
    expect(gh.pulls()).toEqual([]);

    // A writer's /approve: its 👍, and the implementation, told the revised plan, opens a draft PR.
    const approveId = gh.addComment(issue, { author: 'maintainer', body: '/approve' });
    const approved = await act({
      event: 'issue_comment',
      payload: commentPayload({ number: issue, comment: approveId, body: '/approve', sender: 'maintainer' }),
      script,
    });
    expect(approved.code).toBe(0);
    expect(approved.core.failed).toEqual([]);
    expect(gh.reactions(approveId)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect(firsts).toHaveLength(3);
    expect(firsts[2]).toContain('## The approved plan');
    expect(firsts[2]).toContain(REVISED);
    expect(approved.core.outputs.outcome).toBe('resolved');
    expect(gh.pulls().map((p) => [p.head.ref, p.draft])).toEqual([[`issueloop/issue-${issue}`, true]]);
  });
});
