import { describe, expect, it } from 'vitest';
import { ACTIONS_BOT } from '../../src/action/token-route.js';
import { reply } from '../../src/emulators/anthropic/index.js';
import { APP_ID, INSTALLATION_ID, installedApp } from '../helpers/github-app.js';
import { memberIssue } from '../helpers/world.js';
import { fixTypo, useActionRuns } from './act.js';
import { dispatchPayload, labeledPayload } from './action-fixture.js';

/**
 * The action with a GitHub App (app_id / app_private_key), in-process against the emulators: it
 * mints its own installation tokens, its bot opens the PR and makes the commits, and nothing the
 * runner shows holds the key. And a one-hour token passed in from outside for a long drain.
 */

// Origin is GitHub's git over HTTP, which checks the token of every fetch and push.
const { run, act } = useActionRuns({ gitOverHttp: true });
/** The emulator's installation tokens (`ghs_` and 36 hex digits), as minted for an App. */
const MINTED = /ghs_[0-9a-f]{36}/;
/** The job's own token, which the runner passes as github_token by default beside the App inputs. */
const ACTIONS_TOKEN = 'ghs_jobTokenOfTheActionsApp0000000001';
const showEnv = reply.toolUse([{ name: 'bash', input: { command: 'env' } }]);

function labeledByMaintainer(number: number) {
  run.github.setPermission('maintainer', 'maintain');
  return labeledPayload({ number, title: 'Fix the greeting typo', label: 'issueloop', sender: 'maintainer' });
}

describe('the action with app_id and app_private_key', () => {
  it('resolves the issue as the App: its bot opens the PR and makes every commit, no CI warning, the key shown nowhere nor given to the agent', {
    timeout: 30_000,
  }, async () => {
    const app = installedApp(run.github);
    run.github.addToken(ACTIONS_TOKEN, { login: ACTIONS_BOT, kind: 'installation' });
    const number = run.github.addIssue(memberIssue('Fix the greeting typo'));
    // actions/checkout leaves the job's token in the checkout's config for GitHub's host.
    const basic = Buffer.from(`x-access-token:${ACTIONS_TOKEN}`).toString('base64');
    const checkoutHeader = (server: string) =>
      run.fx.git(run.fx.checkout, 'config', `http.${server}/.extraheader`, `AUTHORIZATION: basic ${basic}`);
    const result = await act({
      event: 'issues',
      payload: labeledByMaintainer(number),
      beforeRun: (env) => checkoutHeader(env.GITHUB_SERVER_URL ?? 'missing'),
      // The PEM text as a secret holds it, lines and all; github_token stays the runner's default.
      inputs: { app_id: String(APP_ID), app_private_key: app.privateKeyPem, github_token: ACTIONS_TOKEN },
      // The agent looks at its environment first: what it sees goes back to the model.
      script: (request) =>
        [showEnv, fixTypo][Math.floor((request.messages.length - 1) / 2)] ?? reply.text('Fixed.'),
    });

    expect(result.core.failed).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.core.outputs.outcome).toBe('resolved');
    const mints = run.github.requests.filter(
      (r) => r.method === 'POST' && r.path === `/app/installations/${INSTALLATION_ID}/access_tokens`,
    );
    expect(mints.map((r) => r.status)).toContain(201);
    const botLogin = 'issueloop-test[bot]';
    expect(run.github.pulls()).toHaveLength(1);
    expect(run.github.pulls()[0]?.user.login).toBe(botLogin);
    const bot = `${botLogin} <${app.botId}+${botLogin}@users.noreply.github.com>`;
    const who = run.fx
      .git(
        run.fx.root,
        '--git-dir',
        run.fx.origin,
        'log',
        '--format=%an <%ae>|%cn <%ce>',
        `main..issueloop/issue-${number}`,
      )
      .split('\n');
    expect(who.length).toBeGreaterThan(0);
    expect(who).toEqual(who.map(() => `${bot}|${bot}`));
    // Every fetch and the push carried the App's token, never the job's from the checkout: a push
    // with the job's token would start no CI on the PR's later commits.
    expect(run.fx.git(run.fx.checkout, 'config', '--get-regexp', 'extraheader')).toContain(basic);
    const gitRequests = run.github.gitRequests;
    const pushes = gitRequests.filter((r) => r.service === 'git-receive-pack' && r.method === 'POST');
    expect(pushes.map((r) => [r.status, r.login])).toEqual([[200, botLogin]]);
    expect(gitRequests.length).toBeGreaterThan(pushes.length);
    for (const request of gitRequests) expect(request.token).toMatch(MINTED);
    // The App was the token used: the Actions token's warning is not given.
    expect(result.core.warnings.filter((w) => /CI will not run|expires one hour/.test(w))).toEqual([]);
    const summary = result.core.summaryHtml();
    expect(summary).toMatch(/<table>/);
    expect(summary).not.toContain('[!WARNING]');
    expect(result.everything).not.toMatch(/CI follow-ups: inactive/);

    // The key is masked whole and line by line; neither it, a line of it, nor a minted token shows.
    const keyLines = app.privateKeyPem
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length >= 16 && !line.startsWith('-----'));
    expect(keyLines.length).toBeGreaterThan(10);
    // As the runner reads an input: trimmed.
    expect(result.core.secrets).toContain(app.privateKeyPem.trim());
    for (const line of keyLines) expect(result.core.secrets).toContain(line);
    expect(result.everything).toContain(`#${number}`);
    expect(result.everything).not.toContain('PRIVATE KEY');
    for (const line of keyLines) expect(result.everything).not.toContain(line);
    expect(result.everything).not.toMatch(MINTED);
    // Each token the action minted is masked on the runner as it is minted, as the key is: the
    // runner's log is the one place issueloop's own redaction does not cover every line of.
    const used = new Set(gitRequests.map((r) => r.token));
    expect(used.size).toBeGreaterThan(0);
    for (const token of used) expect(result.core.secrets).toContain(token);
    // Nor did the agent's environment hold the key, the App's variables or a token.
    const agentSaw = JSON.stringify(result.anthropic.requests);
    expect(agentSaw).toContain('PATH=');
    expect(agentSaw).not.toMatch(MINTED);
    // The App id is no secret (its variable may stay); the key and every token are.
    expect(agentSaw).not.toMatch(/ISSUELOOP_APP_PRIVATE_KEY|PRIVATE KEY|GITHUB_TOKEN|GH_TOKEN/);
    for (const line of keyLines) expect(agentSaw).not.toContain(line);
    expect(agentSaw).not.toContain(ACTIONS_TOKEN);
  });
});

describe('a one-hour installation token passed in as github_token', () => {
  it('gets the warning in drain mode with the default time_budget (5h), at the top of the log and of the summary', {
    timeout: 30_000,
  }, async () => {
    const token = 'ghs_fromCreateGithubAppToken000000001';
    run.github.addToken(token, { login: 'octo-helper[bot]', kind: 'installation' });
    const result = await act({
      event: 'workflow_dispatch',
      payload: dispatchPayload(),
      inputs: { github_token: token },
    });
    expect(result.code).toBe(0);
    expect(result.core.outputs.outcome).toBe('empty_backlog');
    const warned = result.core.warnings.filter((w) => /expires one hour after it was minted/.test(w));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/this job may run 300 minutes/);
    expect(warned[0]).toMatch(/Pass app_id and app_private_key/);
    expect(result.core.warnings.filter((w) => /CI will not run/.test(w))).toEqual([]);
    const summary = result.core.summaryHtml();
    expect(summary).toContain('<h2>issueloop: drain</h2>');
    const warning = summary.indexOf('[!WARNING]');
    expect(warning).toBeGreaterThan(0);
    expect(summary.slice(warning)).toMatch(/expires one hour after it was minted/);
    expect(result.everything).not.toContain(token);
  });
});
