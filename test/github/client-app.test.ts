import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import { createGitHubEmulator, DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { openGitHubAdapter } from '../../src/github/adapter.js';
import { createAppTokenSource, REMINT_FLOOR_MS } from '../../src/github/app-auth.js';
import { createGitHubClient } from '../../src/github/client.js';
import { emptyTrackingRecord } from '../../src/github/tracking-comment.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { APP_ID, installedApp } from '../helpers/github-app.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { emulatedConfig } from './emulated.js';

const BASE = 'https://api.github.test';

/**
 * The client with an App's token source, where GitHub's clock runs ahead of ours: the source still
 * believes its token fresh when GitHub already refuses it, as when a token expires mid-request.
 */
function appClient(options: { projectsToken?: string } = {}) {
  const github = new FakeClock();
  const ours = new FakeClock();
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => github.now() });
  const app = installedApp(emulator, { tokenLifetimeMs: 120_000 });
  const tokenSource = createAppTokenSource({
    appId: APP_ID,
    privateKey: app.privateKeyPem,
    repo: { owner: 'octo-org', name: 'widgets' },
    apiUrl: BASE,
    userAgent: 'issueloop/test',
    fetch: emulator.fetch,
    clock: ours,
  });
  const client = createGitHubClient({
    apiUrl: BASE,
    graphqlUrl: `${BASE}/graphql`,
    tokenSource,
    ...options,
    repo: { owner: 'octo-org', name: 'widgets' },
    userAgent: 'issueloop/test',
    fetch: emulator.fetch,
    log: createMemoryLog([]),
    clock: ours,
    redact: createRedactor([]),
    retryUnitMs: 0,
    writeSpacingMs: 0,
  });
  const mints = () => emulator.requests.filter((r) => r.path.endsWith('/access_tokens')).length;
  const refused = () => emulator.requests.filter((r) => r.status === 401).length;
  return { client, emulator, github, ours, app, mints, refused };
}

const VIEWER = 'query Viewer { viewer { login } }';

describe('the GitHub client with a GitHub App', () => {
  it('sends REST and GraphQL with the installation token, acting as the bot', async () => {
    const { client, mints, app } = appClient();
    const repo = await client.call('read', () =>
      client.rest.repos.get({ owner: 'octo-org', repo: 'widgets' }),
    );
    expect(repo.data.full_name).toBe('octo-org/widgets');
    const viewer = await client.call('viewer', () => client.graphql<{ viewer: { login: string } }>(VIEWER));
    expect(viewer.viewer.login).toBe(app.botLogin);
    expect(mints()).toBe(1);
    expect(client.tokenSource.kind).toBe('app');
  });

  it('renews a token GitHub refuses as Bad credentials and sends the request once more, REST and GraphQL', async () => {
    const { client, github, ours, mints, refused } = appClient();
    await client.call('read', () => client.rest.issues.listForRepo({ owner: 'octo-org', repo: 'widgets' }));
    // GitHub's clock moves twice as fast as ours: the token expires there while ours thinks it fresh.
    // Ours still moves a minute, so a renewed token is not refused younger than the floor allows.
    github.advance(120_000);
    ours.advance(REMINT_FLOOR_MS);
    const issues = await client.call('list', () =>
      client.rest.issues.listForRepo({ owner: 'octo-org', repo: 'widgets' }),
    );
    expect(issues.status).toBe(200);
    expect([mints(), refused()]).toEqual([2, 1]);
    github.advance(120_000);
    ours.advance(REMINT_FLOOR_MS);
    const viewer = await client.call('viewer', () => client.graphql<{ viewer: { login: string } }>(VIEWER));
    expect(viewer.viewer.login).toBe('issueloop-test[bot]');
    expect([mints(), refused()]).toEqual([3, 2]);
  });

  it('keeps ISSUELOOP_PROJECTS_TOKEN for the board beside an App', async () => {
    const { client, emulator, app } = appClient({ projectsToken: DEFAULT_TOKEN });
    const board = await client.projectsGraphql<{ viewer: { login: string } }>(VIEWER);
    const repo = await client.graphql<{ viewer: { login: string } }>(VIEWER);
    expect([board.viewer.login, repo.viewer.login]).toEqual(['issueloop-bot', app.botLogin]);
    expect(emulator.requests.filter((r) => r.path.endsWith('/access_tokens'))).toHaveLength(1);
  });
});

describe('the tracking comment written by a GitHub App', () => {
  it('is found again after a crash though its author is a Bot with the association NONE', async () => {
    const { client, emulator, app } = appClient();
    const stateDir = await mkdtemp(join(tmpdir(), 'issueloop-app-tracking-'));
    try {
      const n = emulator.addIssue({
        title: 'Fix it',
        author: 'm',
        authorAssociation: 'OWNER',
        labels: ['issueloop'],
      });
      const record = { ...emptyTrackingRecord('2026-11-21T12:00:00.000Z'), attempts: 1 };
      const view = { phase: 'working' as const, attempt: 1, model: 'claude-sonnet-5-5', costUsd: 0, record };
      const config = emulatedConfig();
      const first = await (await openGitHubAdapter(client, config, { stateDir })).tracking.upsert(n, view);
      const comment = emulator.comments(n)[0];
      expect(comment).toMatchObject({
        user: { login: app.botLogin, type: 'Bot' },
        author_association: 'NONE',
      });
      // A new process: nothing in memory, the comment is found by its marker and trusted.
      const again = await (await openGitHubAdapter(client, config, { stateDir })).tracking.upsert(n, view);
      expect(again).toEqual({ id: first.id, created: false });
      expect(emulator.comments(n)).toHaveLength(1);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
