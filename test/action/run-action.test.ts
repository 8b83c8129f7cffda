import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAction } from '../../src/action/run-action.js';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { readLedger } from '../../src/session/ledger.js';
import { addTrackingComment, failureHistory } from '../helpers/tracking-history.js';
import { memberIssue } from '../helpers/world.js';
import { useActionRuns } from './act.js';
import { inputEnv, labeledPayload, recordingCore } from './action-fixture.js';

const { run, act } = useActionRuns();

/** An issue the action resolved (its draft PR open), and the `pull_request` `closed` payload of that PR. */
async function resolvedByTheAction() {
  const number = run.github.addIssue(memberIssue('Fix the greeting typo'));
  run.github.setPermission('maintainer', 'maintain');
  const payload = labeledPayload({
    number,
    title: 'Fix the greeting typo',
    label: 'issueloop',
    sender: 'maintainer',
  });
  expect((await act({ event: 'issues', payload })).core.outputs.outcome).toBe('resolved');
  const pr = run.github.pulls().find((p) => p.head.ref === `issueloop/issue-${number}`);
  if (!pr) throw new Error('setup: no pull request');
  const closed = {
    action: 'closed',
    repository: { full_name: 'octo-org/widgets' },
    pull_request: { number: pr.number, head: { ref: pr.head.ref, repo: { full_name: 'octo-org/widgets' } } },
    sender: { login: 'octocat', type: 'User' },
  };
  return { number, pr, closed };
}

describe('the action, in-process against the emulators', () => {
  it('an unlisted bot is refused; the same label from a listed bot starts the work', {
    timeout: 30_000,
  }, async () => {
    const number = run.github.addIssue(memberIssue('Fix the greeting typo'));
    run.github.addUser('helper-bot[bot]', { type: 'Bot' });
    const payload = labeledPayload({
      number,
      title: 'Fix the greeting typo',
      label: 'issueloop',
      sender: 'helper-bot[bot]',
      senderType: 'Bot',
    });
    const refused = await act({ event: 'issues', payload });
    expect(refused.code).toBe(0);
    expect(refused.core.notices.join('\n')).toMatch(
      /bot helper-bot\[bot\], which is not listed in the allowed_bots/,
    );
    expect(refused.core.outputs.outcome).toBe('refused');
    expect(refused.anthropic.requests).toHaveLength(0);

    const allowed = await act({ event: 'issues', payload, inputs: { allowed_bots: 'helper-bot' } });
    expect(allowed.code).toBe(0);
    expect(allowed.core.outputs.outcome).toBe('resolved');
  });

  it('regression: a projects_token input is a credential, not an unknown ISSUELOOP_ setting (it was exit 2)', {
    timeout: 30_000,
  }, async () => {
    const number = run.github.addIssue(memberIssue('Fix the greeting typo'));
    run.github.setPermission('maintainer', 'maintain');
    const projectsToken = `ghp_${'P'.repeat(36)}`;
    const payload = labeledPayload({
      number,
      title: 'Fix the greeting typo',
      label: 'issueloop',
      sender: 'maintainer',
    });
    const result = await act({ event: 'issues', payload, inputs: { projects_token: projectsToken } });
    expect(result.core.failed).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.core.outputs.outcome).toBe('resolved');
    expect(result.everything).not.toContain(projectsToken);
  });

  it("regression: a closed event on issueloop's merged PR, in a new job with no state, books it from the tracking comment (labels off), no session", {
    timeout: 30_000,
  }, async () => {
    const { number, pr, closed } = await resolvedByTheAction();
    run.github.mergePull(pr.number, 'octocat');
    // A new job: the state directory is gone; the issue's history is in its tracking comment.
    await rm(join(run.fx.checkout, '.issueloop'), { recursive: true, force: true });
    const after = await act({ event: 'pull_request', payload: closed });
    expect(after.code).toBe(0);
    expect(after.core.notices.join('\n')).toContain(
      `#${number}'s pull request (pull_request closed) needed no session`,
    );
    // No session: no model call (the run's start-up check of the key is a GET).
    expect(after.anthropic.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(run.github.labelsOf(number)).not.toContain('issueloop');
    const comment = run.github.comments(number).find((c) => c.body.includes('issueloop:tracking'));
    expect(comment?.body).toContain('**issueloop** · done');
  });

  it('regression: a pull request event runs follow-ups only: a PR closed unmerged requeues its issue, and no first attempt runs in that job', {
    timeout: 30_000,
  }, async () => {
    const { number, pr, closed } = await resolvedByTheAction();
    run.github.closePull(pr.number, 'octocat');
    const after = await act({ event: 'pull_request', payload: closed });
    expect(after.code).toBe(0);
    expect(after.anthropic.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(run.github.pulls().filter((p) => p.state === 'open')).toEqual([]);
    const comment = run.github.comments(number).find((c) => c.body.includes('issueloop:tracking'));
    expect(comment?.body).toContain(`pull request #${pr.number} was closed without merging`);
  });

  it('another label, another issues action, another event: a notice and success, no work', async () => {
    const number = run.github.addIssue(memberIssue('Fix the greeting typo'));
    const bug = await act({
      event: 'issues',
      payload: labeledPayload({ number, title: 't', label: 'bug', sender: 'octocat' }),
    });
    expect(bug.code).toBe(0);
    expect(bug.core.notices).toEqual([
      'issueloop: nothing to do: label "bug" is not the trigger label "issueloop"',
    ]);
    expect(bug.core.outputs).toEqual({
      outcome: 'skipped',
      pr_url: '',
      issues_resolved: '0',
      cost_usd: '0.0000',
      // No run read the outcome records.
      merged: '',
      usd_per_merged_pr: '',
    });
    expect(bug.anthropic.requests).toHaveLength(0);
    expect(bug.core.summaryHtml()).toContain('Nothing to do: label &quot;bug&quot; is not the trigger label');

    const push = await act({ event: 'push', payload: {} });
    expect(push.code).toBe(0);
    expect(push.core.notices[0]).toMatch(
      /event "push" starts no work: use issues \(labeled\), issue_comment \(created, for commands\), schedule, workflow_dispatch, or check_suite/,
    );
    expect(run.github.pulls()).toHaveLength(0);
  });

  it('history merged from the tracking comment when the state directory is empty: the third failure escalates', {
    timeout: 30_000,
  }, async () => {
    const number = run.github.addIssue(memberIssue('Improve everything'));
    addTrackingComment(run.github, number, failureHistory(2, 'no_changes'), 'actions-bot');
    run.github.setPermission('maintainer', 'write');
    const { code, core } = await act({
      event: 'issues',
      payload: labeledPayload({
        number,
        title: 'Improve everything',
        label: 'issueloop',
        sender: 'maintainer',
      }),
    });
    expect(code).toBe(0);
    expect(core.outputs.outcome).toBe('no_changes');
    expect(run.github.labelsOf(number)).toContain('issueloop:needs-human');
    const runs = join(run.fx.checkout, '.issueloop', 'runs');
    const { events } = await readLedger(join(runs, (await readdir(runs))[0] as string));
    expect(events.find((e) => e.type === 'claim')).toMatchObject({ issue: number, attempt: 3 });
    expect(core.errors).toEqual([
      { title: `issueloop #${number}: no_changes`, message: expect.stringContaining('Improve everything') },
    ]);
  });

  it('regression: a time budget no longer than a session is a bad input (exit 2), not a green run that did nothing', async () => {
    run.github.addIssue(memberIssue('Fix the greeting typo'));
    const { code, core, anthropic } = await act({
      event: 'schedule',
      payload: { schedule: '0 * * * *' },
      inputs: { time_budget: '30m' },
    });
    expect(code).toBe(2);
    expect(core.failed[0]).toContain(
      'input time_budget (30m) leaves no room for a session of session.max_duration (45m)',
    );
    expect(anthropic.requests).toHaveLength(0);
  });

  it('bad inputs: exit 2 with the input named, tokens masked before anything else', async () => {
    const mode = await act({ event: 'schedule', payload: {}, inputs: { mode: 'sometimes' } });
    expect(mode.code).toBe(2);
    expect(mode.core.failed).toEqual([
      'issueloop: input mode: expected "auto", "issue" or "drain", got "sometimes"',
    ]);
    expect(mode.core.secrets).toEqual([DEFAULT_TOKEN, mode.apiKey]);

    const workers = await act({ event: 'schedule', payload: {}, inputs: { workers: '0' } });
    expect(workers.code).toBe(2);
    expect(workers.core.failed[0]).toMatch(/workers.*input workers/s);
    for (const result of [mode, workers]) {
      expect(result.everything).not.toContain(DEFAULT_TOKEN.slice(4));
      expect(result.everything).not.toContain(result.apiKey.slice(8));
    }
  });
});

describe('the action before the event is read', () => {
  it('regression: a failure to read the event is redacted with every secret of the environment, not only the inputs', async () => {
    const secret = 'plainRunnerSecret42xyz';
    const inputs = await inputEnv({
      github_token: 'ghp_inputToken0123456789abcdefABCDEF',
      anthropic_api_key: 'sk-ant-api03-redactEventFailure0123456789',
    });
    const core = recordingCore(inputs);
    const code = await runAction({
      env: {
        ...inputs,
        GITHUB_EVENT_NAME: 'workflow_dispatch',
        GITHUB_EVENT_PATH: `/nonexistent/${secret}/event.json`,
        GH_TOKEN: secret,
        GITHUB_REPOSITORY: 'octo-org/widgets',
      },
      cwd: join(import.meta.dirname, 'no-such-checkout'),
      core,
      version: '0.0.0',
    });
    expect(code).toBe(2);
    expect(core.failed.join('\n')).toContain('cannot read the event payload');
    expect(core.failed.join('\n')).not.toContain(secret);
  });
});
