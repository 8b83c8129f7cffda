import { describe, expect, it } from 'vitest';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { createAppTokenSource, REMINT_FLOOR_MS, renewalMarginMs } from '../../src/github/app-auth.js';
import { GitHubAppError } from '../../src/github/app-error.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { APP_ID, appKeys, INSTALLATION_ID, installedApp } from '../helpers/github-app.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const BASE = 'https://api.github.test';
const LIFETIME = 120_000;

function world(
  more: Parameters<typeof installedApp>[1] = {},
  source: Partial<Parameters<typeof createAppTokenSource>[0]> = {},
) {
  const clock = new FakeClock();
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
  const app = installedApp(emulator, { tokenLifetimeMs: LIFETIME, ...more });
  const learned: string[] = [];
  const tokens = createAppTokenSource({
    appId: APP_ID,
    privateKey: app.privateKeyPem,
    repo: { owner: 'octo-org', name: 'widgets' },
    apiUrl: BASE,
    userAgent: 'issueloop/test',
    fetch: emulator.fetch,
    clock,
    onToken: (token) => learned.push(token),
    ...source,
  });
  const mints = () => emulator.requests.filter((r) => r.path.endsWith('/access_tokens')).length;
  const lookups = () => emulator.requests.filter((r) => r.path.endsWith('/installation')).length;
  return { clock, emulator, app, tokens, learned, mints, lookups };
}

describe('renewalMarginMs', () => {
  it('renews an hour-long token five minutes early and a two-minute one a quarter early', () => {
    expect(renewalMarginMs(3_600_000)).toBe(300_000);
    expect(renewalMarginMs(120_000)).toBe(30_000);
  });
});

describe('the GitHub App token source', () => {
  it('mints one token for many calls while it is fresh, after looking the installation up once', async () => {
    const { tokens, mints, lookups, learned, clock } = world();
    const first = await tokens.token();
    clock.advance(LIFETIME - renewalMarginMs(LIFETIME) - 1_000);
    for (let i = 0; i < 5; i++) expect(await tokens.token()).toBe(first);
    expect(first).toMatch(/^ghs_/);
    expect([mints(), lookups()]).toEqual([1, 1]);
    expect(learned).toEqual([first]);
    expect(await tokens.installationId()).toBe(INSTALLATION_ID);
  });

  it('mints a new token once the renewal margin before expires_at is reached', async () => {
    const { tokens, mints, clock, learned } = world();
    const first = await tokens.token();
    clock.advance(LIFETIME - renewalMarginMs(LIFETIME));
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(second).toMatch(/^ghs_/);
    expect(mints()).toBe(2);
    expect(learned).toEqual([first, second]);
  });

  it('tells what GitHub granted the latest token (the access_tokens answer), nothing before a mint', async () => {
    const granted = { contents: 'write', issues: 'read', pull_requests: 'write', metadata: 'read' };
    const { tokens } = world({ permissions: granted });
    expect(tokens.permissions()).toBeUndefined();
    await tokens.token();
    expect(tokens.permissions()).toEqual(granted);
  });

  it('lets concurrent callers share one mint', async () => {
    const { tokens, mints } = world();
    const all = await Promise.all(Array.from({ length: 6 }, () => tokens.token()));
    expect(new Set(all).size).toBe(1);
    expect(mints()).toBe(1);
  });

  it('renews a rejected token, but hands out a newer cached one without minting', async () => {
    const { tokens, mints } = world();
    const first = await tokens.token();
    const second = await tokens.renew(first);
    expect(second).toMatch(/^ghs_/);
    expect(second).not.toBe(first);
    expect(mints()).toBe(2);
    expect(await tokens.renew(first)).toBe(second);
    expect(mints()).toBe(2);
  });

  it('renew storm: a token a forced renewal just minted is not renewed again when refused within a minute', async () => {
    const { tokens, mints, clock } = world();
    const first = await tokens.token();
    const second = await tokens.renew(first);
    expect(second).toMatch(/^ghs_/);
    // GitHub refuses the brand-new token too (a revoked installation, a server that refuses all):
    // no third mint, however many requests it refuses.
    for (let i = 0; i < 5; i++) expect(await tokens.renew(second as string)).toBeUndefined();
    expect(mints()).toBe(2);
    // Once that token has aged past the floor, a refusal renews it again.
    clock.advance(REMINT_FLOOR_MS);
    const third = await tokens.renew(second as string);
    expect(third).toMatch(/^ghs_/);
    expect(third).not.toBe(second);
    expect(mints()).toBe(3);
  });

  it('regression: a mint that meets a 502 is retried, and says so (App token requests were never retried)', async () => {
    const log = createMemoryLog();
    const { tokens, emulator, mints } = world(
      {},
      { retryUnitMs: 1, notices: { log, redact: (text: string) => text } },
    );
    emulator.failNext({ method: 'POST', path: /\/access_tokens$/, status: 502 });
    expect(await tokens.token()).toMatch(/^ghs_/);
    expect(mints()).toBe(2);
    expect(log.entries.map((e) => e.msg)).toEqual([
      expect.stringMatching(/^github: POST \/app\/installations\/\d+\/access_tokens: .*retrying 1\/2 in/),
    ]);
  });

  it('uses a configured installation id without looking it up', async () => {
    const { tokens, lookups, mints } = world({}, { installationId: INSTALLATION_ID });
    await tokens.token();
    expect([lookups(), mints()]).toEqual([0, 1]);
  });
});

describe('the GitHub App token source, refused', () => {
  it('names the fix when the App is not installed on the repository', async () => {
    const { tokens } = world({ installations: [{ id: 5, account: 'elsewhere' }] });
    const error = await tokens.token().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GitHubAppError);
    expect((error as Error).message).toMatch(
      /not installed on octo-org\/widgets.*Fix: install the App on octo-org\/widgets/,
    );
  });

  it('names the fix when the installation is suspended', async () => {
    const { tokens, emulator } = world();
    emulator.suspendInstallation(INSTALLATION_ID);
    const error = await tokens.token().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GitHubAppError);
    expect((error as Error).message).toMatch(/is suspended.*Fix: unsuspend it in the settings of octo-org/);
  });

  it('names the id and the key when GitHub refuses the JWT', async () => {
    const clock = new FakeClock();
    const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
    installedApp(emulator);
    const tokens = createAppTokenSource({
      appId: APP_ID,
      privateKey: appKeys().privateKeyPem,
      repo: { owner: 'octo-org', name: 'widgets' },
      apiUrl: BASE,
      userAgent: 'issueloop/test',
      fetch: emulator.fetch,
      clock,
    });
    const error = await tokens.token().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GitHubAppError);
    expect((error as Error).message).toMatch(
      /A JSON web token could not be decoded.*Fix: check ISSUELOOP_APP_ID \(now 4242\) and that ISSUELOOP_APP_PRIVATE_KEY/,
    );
    // GET /app (the bot's identity) says the same, not a bare 401 whose fix would be GH_TOKEN's.
    const asApp = await tokens.appRequest('GET /app').catch((err: unknown) => err);
    expect(asApp).toBeInstanceOf(GitHubAppError);
    expect((asApp as Error).message).toMatch(/refused the GitHub App's JWT.*Fix: check ISSUELOOP_APP_ID/);
  });
});
