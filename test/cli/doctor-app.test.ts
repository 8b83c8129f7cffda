import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApp } from '../../src/cli/commands/doctor-app.js';
import { githubChecks } from '../../src/cli/commands/doctor-github.js';
import type { Check } from '../../src/cli/commands/doctor-report.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createRedactor } from '../../src/core/redact.js';
import type { GitHubEmulator } from '../../src/emulators/github/index.js';
import { isAppTokenSource } from '../../src/github/app-identity.js';
import { buildGitHubClient } from '../../src/run/github-deps.js';
import { APP_ID, appKeys, appWorld, INSTALLATION_ID } from '../helpers/github-app.js';
import { createMemoryLog } from '../helpers/memory-log.js';

/**
 * doctor's GitHub checks with a GitHub App alone (no token in the environment), against the emulator's
 * App endpoints in-process; the App's key is generated in the test.
 */
const ORG_BOARD = ['project.owner=octo-org', 'project.number=3'];
const WORKFLOWS_OPEN = ['protected_paths=["docs/**"]'];
/** What issueloop needs of an App, as the emulator grants it by default (org Projects included). */
const NEEDED = {
  contents: 'write',
  issues: 'write',
  pull_requests: 'write',
  checks: 'read',
  metadata: 'read',
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-doctor-app-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const world = appWorld;

async function doctor(
  setup: { emulator: GitHubEmulator; env: Record<string, string> },
  sets: string[] = [],
): Promise<Map<string, Check>> {
  const loaded = await loadConfig({ cwd: dir, env: setup.env, sets: ['repo=octo-org/widgets', ...sets] });
  const checks = await githubChecks({
    env: setup.env,
    cwd: dir,
    version: '0',
    loaded,
    fetch: setup.emulator.fetch,
  });
  return new Map(checks.map((c) => [c.name, c]));
}

describe('doctor with a GitHub App', () => {
  it('all good: the App mints a token; its kind, write access, CI, workflows and the org board pass', async () => {
    const checks = await doctor(world(), ORG_BOARD);
    expect(checks.get('github app')).toEqual({
      name: 'github app',
      status: 'ok',
      detail: `GitHub App issueloop-test (id ${APP_ID}), installation ${INSTALLATION_ID} on octo-org/widgets, token renewed by issueloop`,
    });
    expect(checks.get('token kind')).toMatchObject({
      status: 'ok',
      detail: 'GitHub App installation (minted by issueloop), acting as issueloop-test[bot]',
    });
    expect(checks.get('github api')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^token accepted/),
    });
    expect(checks.get('write access')).toMatchObject({
      status: 'ok',
      detail: 'contents, issues and pull requests: write on octo-org/widgets',
    });
    expect(checks.get('ci on its PRs')).toEqual({
      name: 'ci on its PRs',
      status: 'ok',
      detail: 'yes (events by a GitHub App start workflows)',
    });
    expect(checks.get('workflows')?.status).toBe('ok');
    expect(checks.get('project')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('"Board" (#3, organisation project)') as unknown,
    });
    expect([...checks.values()].filter((c) => c.status !== 'ok')).toEqual([]);
  });

  it('an App not installed on the repository fails its line with the fix, and no other GitHub check runs', async () => {
    const checks = await doctor(world({ installations: [{ id: 5, account: 'someone-else' }] }));
    expect(checks.get('github app')).toMatchObject({
      status: 'fail',
      detail: `the GitHub App ${APP_ID} is not installed on octo-org/widgets`,
      fix: expect.stringContaining('install the App on octo-org/widgets') as unknown,
    });
    expect([...checks.keys()]).toEqual(['github app']);
  });

  it('a suspended installation fails its line with the fix', async () => {
    const checks = await doctor(
      world({ installations: [{ id: INSTALLATION_ID, account: 'octo-org', suspended: true }] }),
    );
    expect(checks.get('github app')).toMatchObject({
      status: 'fail',
      detail: `the GitHub App ${APP_ID}'s installation on octo-org is suspended`,
      fix: expect.stringContaining('unsuspend it in the settings of octo-org') as unknown,
    });
  });

  it("a key that is not the App's is refused by GitHub: the fix names the id and key variables", async () => {
    const setup = world();
    const checks = await doctor({
      ...setup,
      env: { ...setup.env, ISSUELOOP_APP_PRIVATE_KEY: appKeys().privateKeyPem },
    });
    expect(checks.get('github app')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^GitHub refused the GitHub App's JWT/) as unknown,
      fix: expect.stringContaining('ISSUELOOP_APP_PRIVATE_KEY holds a private key of that App') as unknown,
    });
  });

  it('GitHub out of reach while minting: a failed line that says so and where to look, not a crash', async () => {
    const { env } = world();
    const loaded = await loadConfig({ cwd: dir, env, sets: ['repo=octo-org/widgets'] });
    const gh = buildGitHubClient({
      env,
      config: loaded.config,
      cwd: dir,
      log: createMemoryLog(),
      redact: createRedactor([]),
      version: '0',
      fetch: async () => {
        throw new TypeError('fetch failed: connect ECONNREFUSED');
      },
    });
    const source = gh.tokenSource;
    if (!isAppTokenSource(source)) throw new Error('expected the App token source');
    const { check, kind } = await checkApp(gh, source, APP_ID);
    expect(check).toMatchObject({
      name: 'github app',
      status: 'fail',
      detail: expect.stringMatching(
        /^could not mint a token for the GitHub App 4242 on octo-org\/widgets: .*ECONNREFUSED/,
      ) as unknown,
      fix: 'check GITHUB_API_URL and the network, then run doctor again',
    });
    expect(kind).toBeUndefined();
  });

  it('an App without `issues: write` fails write access, the fix naming Issues and accepting the new permissions', async () => {
    const checks = await doctor(
      world({ permissions: { ...NEEDED, issues: 'read', organization_projects: 'write' } }),
    );
    expect(checks.get('github app')?.status).toBe('ok');
    expect(checks.get('write access')).toMatchObject({
      status: 'fail',
      detail: "the App's token lacks write on issues (issues: read)",
    });
    const fix = checks.get('write access')?.fix ?? '';
    expect(fix).toMatch(/^give the App Issues: Read and write in its settings/);
    expect(fix).not.toContain('Contents');
    expect(fix).toContain('accept the new permissions on the installation');
  });

  it('workflows open to the agent: the Workflows permission judged from what GitHub granted', async () => {
    const without = await doctor(world(), WORKFLOWS_OPEN);
    expect(without.get('workflows')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('the token lacks the Workflows permission') as unknown,
      fix: expect.stringMatching(
        /^give the App Workflows: Read and write in its settings.*accept the new permissions.*; or keep '\.github\/workflows\/\*\*' in protected_paths$/,
      ) as unknown,
    });
    const granted = { ...NEEDED, organization_projects: 'write', workflows: 'write' };
    const withIt = await doctor(world({ permissions: granted }), WORKFLOWS_OPEN);
    expect(withIt.get('workflows')).toMatchObject({
      status: 'ok',
      detail: 'the agent may change .github/workflows/, and the token has the Workflows permission',
    });
  });

  it('an org board without `organization_projects` fails with the fix naming the Projects permission', async () => {
    const checks = await doctor(world({ permissions: NEEDED }), ORG_BOARD);
    expect(checks.get('write access')?.status).toBe('ok');
    expect(checks.get('project')).toMatchObject({
      status: 'fail',
      detail:
        "the App's token lacks the organisation permission Projects: write (organization_projects: none), which octo-org's board needs",
      fix: expect.stringMatching(
        /^give the App the organisation permission Projects: Read and write in its settings \(Permissions → Organization permissions → Projects\), then accept the new permissions/,
      ) as unknown,
    });
  });
});

describe('doctor with a GitHub App and no repository', () => {
  it('regression: says there is no repository to look the installation up for, not that the App is not installed on -/-', async () => {
    const setup = world();
    const loaded = await loadConfig({ cwd: dir, env: setup.env });
    expect(loaded.config.repo).toBeUndefined();
    const checks = await githubChecks({
      env: setup.env,
      cwd: dir,
      version: '0',
      loaded,
      fetch: setup.emulator.fetch,
    });
    expect(checks).toEqual([
      {
        name: 'github app',
        status: 'fail',
        detail: `no repository to look the GitHub App ${APP_ID}'s installation up for`,
        fix: 'pass --repo owner/name (or -R), set `repo:` in issueloop.config.yaml or GH_REPO, or set ISSUELOOP_APP_INSTALLATION_ID',
      },
    ]);
    expect(setup.emulator.requests.filter((r) => r.path.endsWith('/installation'))).toEqual([]);
  });
});
