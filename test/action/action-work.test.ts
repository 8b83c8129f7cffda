import { describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { memberIssue } from '../helpers/world.js';
import { fixTypo, useActionRuns } from './act.js';
import { dispatchPayload, labeledPayload } from './action-fixture.js';

/**
 * What the action does for each kind of start, in-process (the spawned bundle has its smoke tests in
 * action-entry.test.ts): the work, the refusals, the summary, outputs and annotations.
 */
const { run, act } = useActionRuns();

/** Nothing the runner shows or keeps holds a token; both were masked first. */
function expectNoTokens(result: Awaited<ReturnType<typeof act>>): void {
  expect(result.core.secrets).toEqual([DEFAULT_TOKEN, result.apiKey]);
  expect(result.everything.length).toBeGreaterThan(0);
  for (const secret of [DEFAULT_TOKEN, result.apiKey]) expect(result.everything).not.toContain(secret);
}

describe('the action, in-process, by event', () => {
  it("regression: the token actions/checkout leaves in .git/config (http.*.extraheader) is out of the agent's reach", {
    timeout: 60_000,
  }, async () => {
    const header = Buffer.from(`x-access-token:${DEFAULT_TOKEN}`).toString('base64');
    run.fx.git(
      run.fx.checkout,
      'config',
      'http.https://github.com/.extraheader',
      `AUTHORIZATION: basic ${header}`,
    );
    const number = run.github.addIssue(memberIssue('Greeting typo'));
    run.github.setPermission('maintainer', 'maintain');
    const steal = reply.toolUse([
      {
        name: 'bash',
        input: {
          command:
            'git config --get-all http.https://github.com/.extraheader | cut -d" " -f3 | base64 -d > leak.txt; git config --list >> leak.txt; cat .git "$(git rev-parse --git-common-dir)/config" >> leak.txt; cat leak.txt',
        },
      },
    ]);
    const result = await act({
      event: 'issues',
      payload: labeledPayload({ number, title: 'Greeting typo', label: 'issueloop', sender: 'maintainer' }),
      script: (request) =>
        [steal, fixTypo, reply.text('Done.')][Math.floor((request.messages.length - 1) / 2)] ??
        reply.text('Done.'),
    });
    expect(result.code).toBe(0);
    expect(result.core.outputs.outcome).toBe('resolved');
    const seen = JSON.stringify(result.anthropic.requests.map((r) => r.body));
    // The agent did read the git config: what it got back is the config without the header.
    expect(seen).toContain('repositoryformatversion');
    const leak = run.fx.git(
      run.fx.root,
      '--git-dir',
      run.fx.origin,
      'show',
      `issueloop/issue-${number}:leak.txt`,
    );
    expect(leak).toContain('repositoryformatversion');
    for (const secret of [DEFAULT_TOKEN, header]) {
      expect(leak).not.toContain(secret);
      expect(seen).not.toContain(secret);
    }
    expectNoTokens(result);
  });

  it('a read-only user labels an issue: refused with a notice, no model call, still a green run', async () => {
    const number = run.github.addIssue(memberIssue('Greeting typo'));
    run.github.addUser('drive-by');
    run.github.setPermission('drive-by', 'read');
    const result = await act({
      event: 'issues',
      payload: labeledPayload({ number, title: 'Greeting typo', label: 'issueloop', sender: 'drive-by' }),
    });
    expect(result.code).toBe(0);
    expect(result.core.notices).toContainEqual(
      expect.stringContaining(
        `issueloop: #${number} not worked: the label was applied by drive-by, whose permission on the repository is "read"`,
      ),
    );
    expect(result.core.outputs.outcome).toBe('refused');
    expect(result.anthropic.requests).toHaveLength(0);
    expect(run.github.pulls()).toHaveLength(0);
    expectNoTokens(result);
  });

  it('a scheduled run drains the backlog: a row per issue, failures annotated and counted by class', {
    timeout: 60_000,
  }, async () => {
    const typo = run.github.addIssue(memberIssue('Fix the greeting typo'));
    const vague = run.github.addIssue(memberIssue('Improve everything'));
    const result = await act({
      event: 'schedule',
      payload: { schedule: '17 */6 * * *' },
      inputs: { max_usd_per_issue: '1' },
    });
    expect(result.code).toBe(0);
    expect(result.core.failed).toEqual([]);
    // Nothing merged yet: the outcome figures of the last 30 days say so.
    expect(result.core.outputs).toMatchObject({
      outcome: 'empty_backlog',
      issues_resolved: '1',
      merged: '0',
      usd_per_merged_pr: '',
    });
    const summary = result.core.summaryHtml();
    expect(summary).toContain('<h3>Outcomes, last 30d</h3>');
    expect(summary).toContain('<h2>issueloop: drain</h2>');
    for (const n of [typo, vague]) expect(summary).toContain(`<td>#${n}</td>`);
    expect(summary).toMatch(/Failures by class[\s\S]*<code>no_changes<\/code><\/td><td>\d+<\/td>/);
    expect(result.core.errors).toContainEqual({
      message: 'Improve everything: the agent finished without changing any file',
      title: `issueloop #${vague}: no_changes`,
    });
    expectNoTokens(result);
  });

  it('a manual dispatch drains too', async () => {
    const result = await act({ event: 'workflow_dispatch', payload: dispatchPayload() });
    expect(result.code).toBe(0);
    expect(result.core.outputs.outcome).toBe('empty_backlog');
    expect(result.core.summaryHtml()).toContain('<h2>issueloop: drain</h2>');
  });
});
