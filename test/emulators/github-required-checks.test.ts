import { describe, expect, it } from 'vitest';
import { ACTIONS_APP_ID, DEFAULT_TOKEN, emulatedAppId } from '../../src/emulators/github/index.js';
import { call, clockedEmulator, REPO } from './emulator-fixtures.js';

const BRANCH = 'issueloop/issue-1';

describe("a check run's app", () => {
  it('is GitHub Actions by default, or the seeded app with a stable id of its own', async () => {
    const { emulator } = clockedEmulator();
    emulator.addCheckRun({ ref: BRANCH, name: 'test', status: 'completed', conclusion: 'failure' });
    emulator.addCheckRun({ ref: BRANCH, name: 'test2', status: 'queued', app: 'evil-app' });
    const answer = await call<{ check_runs: Array<{ name: string; app: { id: number; slug: string } }> }>(
      emulator,
      'GET',
      `${REPO}/commits/${BRANCH}/check-runs`,
    );
    const apps = answer.json.check_runs.map((r) => [r.name, r.app.slug, r.app.id]);
    expect(apps).toEqual([
      ['test2', 'evil-app', emulatedAppId('evil-app')],
      ['test', 'github-actions', ACTIONS_APP_ID],
    ]);
    expect(emulatedAppId('evil-app')).not.toBe(ACTIONS_APP_ID);
  });
});

describe('required status checks', () => {
  const protection = `${REPO}/branches/main/protection/required_status_checks`;

  it('branch protection: read back with admin rights only (403), 404 for a branch without it', async () => {
    const { emulator } = clockedEmulator();
    expect((await call(emulator, 'GET', protection)).status).toBe(403);
    emulator.setPermission('issueloop-bot', 'admin');
    const unprotected = await call<{ message: string }>(emulator, 'GET', protection);
    expect([unprotected.status, unprotected.json.message]).toEqual([404, 'Branch not protected']);
    emulator.requireStatusChecks('main', [
      { context: 'ci/jenkins' },
      { context: 'test', app_id: ACTIONS_APP_ID },
    ]);
    const read = await call<{ contexts: string[]; checks: unknown[] }>(emulator, 'GET', protection);
    expect(read.json.contexts).toEqual(['ci/jenkins', 'test']);
    expect(read.json.checks).toEqual([
      { context: 'ci/jenkins', app_id: null },
      { context: 'test', app_id: ACTIONS_APP_ID },
    ]);
  });

  it('an installation token without the administration permission is refused too', async () => {
    const { emulator } = clockedEmulator();
    emulator.addToken('ghs_install', { login: 'issueloop[bot]', kind: 'installation' });
    const answer = await call<{ message: string }>(emulator, 'GET', protection, {
      headers: { authorization: 'token ghs_install' },
    });
    expect([answer.status, answer.json.message]).toEqual([403, 'Resource not accessible by integration']);
  });

  it("a ruleset's rules: readable by anyone who reads the repository, integration_id when bound", async () => {
    const { emulator } = clockedEmulator();
    const rules = `${REPO}/rules/branches/main`;
    expect((await call(emulator, 'GET', rules)).json).toEqual([]);
    emulator.requireStatusChecks('main', [{ context: 'deploy', app_id: 42 }, { context: 'lint' }], 'ruleset');
    const answer = await call<Array<{ type: string; parameters: unknown }>>(emulator, 'GET', rules, {
      headers: { authorization: `token ${DEFAULT_TOKEN}` },
    });
    expect(answer.json.map((rule) => [rule.type, rule.parameters])).toEqual([
      [
        'required_status_checks',
        {
          strict_required_status_checks_policy: false,
          required_status_checks: [{ context: 'deploy', integration_id: 42 }, { context: 'lint' }],
        },
      ],
    ]);
  });
});
