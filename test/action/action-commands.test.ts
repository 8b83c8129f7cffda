import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { NEEDS_HUMAN_LABEL } from '../../src/github/labels.js';
import { memberIssue } from '../helpers/world.js';
import { useActionRuns } from './act.js';
import { commentPayload } from './action-fixture.js';

/**
 * Commands in comments, as the action sees them: an `issue_comment` `created` event whose comment
 * is `/issueloop retry` or `/issueloop stop` runs that issue's round for the command alone (a retry
 * then works the issue in the same job, as its trigger label would); other comments start nothing.
 */
const { run, act } = useActionRuns();

/** A labelled issue, a writer and an outsider; `comment` adds a comment and returns its payload. */
function commandWorld(labels: string[] = []) {
  const number = run.github.addIssue(memberIssue('Greeting typo'));
  for (const label of labels) run.github.labelIssue(number, label, 'issueloop-bot');
  run.github.setPermission('maintainer', 'maintain');
  run.github.addUser('drive-by');
  run.github.setPermission('drive-by', 'read');
  const comment = (sender: string, body: string, on = number, onPull = false) => {
    const id = run.github.addComment(on, { author: sender, body });
    return { id, payload: commentPayload({ number: on, comment: id, body, sender, onPull }) };
  };
  return { number, comment };
}

describe('the action: commands in comments', () => {
  it("a writer's /issueloop stop: labelled needs-human, a 👍, no session, a green run", async () => {
    const { number, comment } = commandWorld();
    const { id, payload } = comment('maintainer', '/issueloop stop');
    const result = await act({ event: 'issue_comment', payload });
    expect(result.code).toBe(0);
    expect(result.core.failed).toEqual([]);
    expect(run.github.labelsOf(number)).toContain(NEEDS_HUMAN_LABEL);
    expect(run.github.reactions(id)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    // The model is only checked (a GET), never asked.
    expect(result.anthropic.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(run.github.pulls()).toHaveLength(0);
    expect(result.core.notices).toContainEqual(
      expect.stringContaining(`#${number}: /issueloop stop from maintainer: no session runs`),
    );
  });

  it("a writer's /issueloop retry puts the issue back and works it in the same job", {
    timeout: 60_000,
  }, async () => {
    const { number, comment } = commandWorld([NEEDS_HUMAN_LABEL]);
    const { id, payload } = comment('maintainer', '/issueloop retry');
    const result = await act({ event: 'issue_comment', payload });
    expect(result.code).toBe(0);
    expect(run.github.labelsOf(number)).not.toContain(NEEDS_HUMAN_LABEL);
    expect(run.github.labelsOf(number)).toContain('issueloop');
    expect(run.github.reactions(id)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect(result.core.outputs.outcome).toBe('resolved');
    expect(run.github.pulls().map((p) => p.head.ref)).toEqual([`issueloop/issue-${number}`]);
  });

  it("an outsider's command: no reaction, nothing done, no model call, a green run", async () => {
    const { number, comment } = commandWorld([NEEDS_HUMAN_LABEL]);
    const { id, payload } = comment('drive-by', '/issueloop retry');
    const result = await act({ event: 'issue_comment', payload });
    expect(result.code).toBe(0);
    expect(result.core.failed).toEqual([]);
    expect(result.core.notices).toContainEqual(
      expect.stringContaining(
        'the command was given by drive-by, whose permission on the repository is "read"',
      ),
    );
    expect(run.github.reactions(id)).toEqual([]);
    expect(run.github.labelsOf(number)).toContain(NEEDS_HUMAN_LABEL);
    expect(result.anthropic.requests).toHaveLength(0);
    expect(run.github.pulls()).toHaveLength(0);
  });

  it("a writer's command on issueloop's PR works its issue; on another PR it is a notice, no work", async () => {
    const { number, comment } = commandWorld();
    const pulls: Record<string, number> = {};
    const openPulls = async (env: Record<string, string>) => {
      for (const head of [`issueloop/issue-${number}`, 'feature/x']) {
        const response = await fetch(`${env.GITHUB_API_URL}/repos/octo-org/widgets/pulls`, {
          method: 'POST',
          headers: { authorization: `token ${DEFAULT_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ head, base: 'main', title: head }),
        });
        pulls[head] = ((await response.json()) as { number: number }).number;
      }
    };
    // The PRs are opened once the emulator listens: the first run opens them, the second reuses them.
    const first = await act({
      event: 'issue_comment',
      payload: {},
      beforeRun: openPulls,
    });
    expect(first.core.notices).toContainEqual(expect.stringContaining('nothing to do'));
    const own = pulls[`issueloop/issue-${number}`] as number;
    const other = pulls['feature/x'] as number;
    const onOwn = comment('maintainer', '/issueloop stop', own, true);
    const stopped = await act({ event: 'issue_comment', payload: onOwn.payload });
    expect(stopped.code).toBe(0);
    expect(run.github.labelsOf(number)).toContain(NEEDS_HUMAN_LABEL);
    expect(run.github.reactions(onOwn.id)).toHaveLength(1);
    expect(stopped.core.notices).toContainEqual(expect.stringContaining(`#${number}: /issueloop stop`));

    const onOther = comment('maintainer', '/issueloop retry', other, true);
    const ignored = await act({ event: 'issue_comment', payload: onOther.payload });
    expect(ignored.code).toBe(0);
    expect(ignored.core.notices).toContainEqual(
      expect.stringContaining(`#${other} is not issueloop's pull request`),
    );
    expect(run.github.reactions(onOther.id)).toEqual([]);
    expect(run.github.labelsOf(number)).toContain(NEEDS_HUMAN_LABEL);
    expect(ignored.anthropic.requests).toHaveLength(0);
  });

  it('a comment that gives no command: a notice, no run', async () => {
    const { number, comment } = commandWorld();
    const { id, payload } = comment('maintainer', 'thanks, /issueloop retry later maybe');
    const result = await act({ event: 'issue_comment', payload });
    expect(result.code).toBe(0);
    expect(result.core.notices).toEqual([
      'issueloop: nothing to do: the comment gives no command (/issueloop retry|stop|plan, /approve or /revise)',
    ]);
    expect(result.core.outputs.outcome).toBe('skipped');
    expect(run.github.reactions(id)).toEqual([]);
    expect(run.github.labelsOf(number)).toEqual(['issueloop']);
    expect(result.anthropic.requests).toHaveLength(0);
  });
});
