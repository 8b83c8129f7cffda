import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/action/inputs.js';
import { ACTIONS_BOT, routeNotes, tokenRoute } from '../../src/action/token-route.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { memberIssue } from '../helpers/world.js';
import { useActionRuns } from './act.js';
import { labeledPayload } from './action-fixture.js';

const config = (pr: Record<string, unknown> = {}) => ConfigSchema.parse({ pr });
const HOUR = 60 * 60_000;

describe('tokenRoute: how the action reaches GitHub, from who GitHub says the token is', () => {
  it('the Actions bot, another App installation, a person; an App configured wins over any token', () => {
    expect(tokenRoute(false, ACTIONS_BOT)).toBe('actions');
    expect(tokenRoute(false, 'GitHub-Actions[bot]')).toBe('actions');
    expect(tokenRoute(false, 'octo-helper[bot]')).toBe('installation');
    expect(tokenRoute(false, 'mona')).toBe('user');
    expect(tokenRoute(false, undefined)).toBe('user');
    expect(tokenRoute(true, ACTIONS_BOT)).toBe('app');
  });
});

describe('routeNotes', () => {
  it('the Actions token: CI will not run on its PRs, what to set, and what that switches off', () => {
    const notes = routeNotes('actions', config({ ready_when_green: true }), HOUR / 2);
    expect(notes.warnings).toHaveLength(1);
    expect(notes.warnings[0]).toMatch(/CI will not run on issueloop's pull requests/);
    expect(notes.warnings[0]).toMatch(/app_id: \$\{\{ vars\.ISSUELOOP_APP_ID \}\}/);
    expect(notes.warnings[0]).toMatch(/app_private_key/);
    expect(notes.inactive).toEqual([
      expect.stringMatching(/^CI follow-ups: inactive/),
      expect.stringMatching(/^pr\.ready_when_green: inactive/),
    ]);
    // ready_when_green off: nothing to say about it.
    expect(routeNotes('actions', config(), HOUR).inactive).toHaveLength(1);
  });

  it('a one-hour installation token passed in warns only when the job may outlive it (over 55 minutes)', () => {
    expect(routeNotes('installation', config(), 55 * 60_000).warnings).toEqual([]);
    const long = routeNotes('installation', config(), 5 * HOUR);
    expect(long.warnings).toHaveLength(1);
    expect(long.warnings[0]).toMatch(/expires one hour after it was minted.*300 minutes/);
    expect(long.warnings[0]).toMatch(/Pass app_id and app_private_key/);
  });

  it('an App or a personal token has nothing to warn about, however long the job', () => {
    for (const route of ['app', 'user'] as const) {
      expect(routeNotes(route, config({ ready_when_green: true }), 6 * HOUR)).toEqual({
        warnings: [],
        inactive: [],
      });
    }
  });
});

describe('the app inputs', () => {
  const inputs = (given: Record<string, string>) => readInputs((name) => given[name] ?? '');

  it('app_id with app_private_key (and an installation id) is the App route', () => {
    expect(inputs({ app_id: '12345', app_private_key: 'PEM', app_installation_id: '678' }).app).toEqual({
      id: '12345',
      privateKey: 'PEM',
      installationId: '678',
    });
    expect(inputs({ github_token: 't' }).app).toBeUndefined();
  });

  it('one without the other, or an installation id that is not a number, is a bad input naming it', () => {
    expect(() => inputs({ app_id: '12345' })).toThrow(/input app_id is set without app_private_key/);
    expect(() => inputs({ app_private_key: 'PEM' })).toThrow(/input app_private_key is set without app_id/);
    expect(() => inputs({ app_installation_id: '1' })).toThrow(/app_installation_id is set without app_id/);
    expect(() => inputs({ app_id: '1', app_private_key: 'PEM', app_installation_id: 'abc' })).toThrow(
      /input app_installation_id: expected a number, got "abc"/,
    );
  });
});

describe('the action with the Actions token alone', () => {
  const { run, act } = useActionRuns();

  function labeledByMaintainer(number: number) {
    run.github.setPermission('maintainer', 'maintain');
    return labeledPayload({
      number,
      title: 'Fix the greeting typo',
      label: 'issueloop',
      sender: 'maintainer',
    });
  }

  it('still works, and says once, at the top of the log and of the job summary, that CI will not run on its PRs', {
    timeout: 30_000,
  }, async () => {
    run.github.addToken('ghs_actions_job_token_0001', { login: ACTIONS_BOT, kind: 'installation' });
    const number = run.github.addIssue(memberIssue('Fix the greeting typo'));
    const payload = labeledByMaintainer(number);
    const result = await act({
      event: 'issues',
      payload,
      inputs: { github_token: 'ghs_actions_job_token_0001' },
    });
    expect(result.code).toBe(0);
    expect(result.core.outputs.outcome).toBe('resolved');
    const warned = result.core.warnings.filter((w) => /CI will not run/.test(w));
    expect(warned).toHaveLength(1);
    expect(result.core.log.join('\n')).toMatch(/CI follow-ups: inactive/);
    const summary = result.core.summaryHtml();
    const warning = summary.indexOf('[!WARNING]');
    expect(warning).toBeGreaterThan(0);
    // At the top: before the run's own table.
    expect(warning).toBeLessThan(summary.indexOf('<table>'));
    expect(summary).toMatch(/CI follow-ups: inactive/);
  });

  it('a personal token gets no such warning', { timeout: 30_000 }, async () => {
    const number = run.github.addIssue(memberIssue('Fix the greeting typo'));
    const payload = labeledByMaintainer(number);
    const result = await act({ event: 'issues', payload });
    expect(result.core.outputs.outcome).toBe('resolved');
    expect(result.core.summaryHtml()).toMatch(/<table>/);
    expect(result.everything).not.toMatch(/WARNING|CI will not run|inactive/);
  });
});
