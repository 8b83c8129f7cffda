import { describe, expect, it } from 'vitest';
import { JWT_MESSAGES } from '../../src/emulators/github/app-jwt.js';
import { DEFAULT_TOKEN_LIFETIME_MS } from '../../src/emulators/github/app-state.js';
import { isAppPath } from '../../src/emulators/github/routes-apps.js';
import { APP_ID, appKeys, CLIENT_ID, INSTALLATION_ID, installedApp, signJwt } from '../helpers/github-app.js';
import { BASE, clockedEmulator, START } from './emulator-fixtures.js';

const NOW_S = START / 1000;

async function call(
  emulator: ReturnType<typeof clockedEmulator>['emulator'],
  method: string,
  path: string,
  authorization?: string,
  body?: unknown,
) {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  const response = await emulator.fetch(`${BASE}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function world(more: Parameters<typeof installedApp>[1] = {}) {
  const clocked = clockedEmulator();
  const app = installedApp(clocked.emulator, more);
  const jwt = (claims: Record<string, unknown> = {}) =>
    `Bearer ${signJwt(app.privateKeyPem, { iat: NOW_S - 30, exp: NOW_S + 570, iss: APP_ID, ...claims })}`;
  const mint = () =>
    call(clocked.emulator, 'POST', `/app/installations/${INSTALLATION_ID}/access_tokens`, jwt());
  return { ...clocked, app, jwt, mint };
}

describe('GitHub App JWTs on the emulator', () => {
  it('answers GET /app for a JWT signed with the App key, by app id or client id', async () => {
    const { emulator, jwt } = world();
    for (const iss of [APP_ID, String(APP_ID), CLIENT_ID]) {
      const answer = await call(emulator, 'GET', '/app', jwt({ iss }));
      expect(answer).toMatchObject({
        status: 200,
        json: { id: APP_ID, slug: 'issueloop-test', client_id: CLIENT_ID },
      });
    }
  });

  it.each([
    ['exp more than ten minutes after iat', { iat: NOW_S - 30, exp: NOW_S + 600 }, JWT_MESSAGES.expTooFar],
    ['exp more than ten minutes ahead', { iat: NOW_S + 30, exp: NOW_S + 620 }, JWT_MESSAGES.expTooFar],
    ['an expired JWT', { iat: NOW_S - 700, exp: NOW_S - 100 }, JWT_MESSAGES.expired],
    ['iat in the future beyond the skew', { iat: NOW_S + 120, exp: NOW_S + 300 }, JWT_MESSAGES.iatFuture],
    ['an unknown issuer', { iss: 99 }, JWT_MESSAGES.undecodable],
  ])('refuses %s with 401 and GitHub message', async (_name, claims, message) => {
    const { emulator, jwt } = world();
    expect(await call(emulator, 'GET', '/app', jwt(claims))).toMatchObject({
      status: 401,
      json: { message },
    });
  });

  it('forgives an iat up to a minute ahead (clock skew)', async () => {
    const { emulator, jwt } = world();
    const answer = await call(emulator, 'GET', '/app', jwt({ iat: NOW_S + 50, exp: NOW_S + 550 }));
    expect(answer.status).toBe(200);
  });

  it('refuses a JWT signed with another key, a token, and garbage as undecodable', async () => {
    const { emulator, jwt } = world();
    const other = signJwt(appKeys().privateKeyPem, { iat: NOW_S - 30, exp: NOW_S + 500, iss: APP_ID });
    for (const authorization of [`Bearer ${other}`, 'token ghp_emulator', 'Bearer not.a.jwt!', undefined]) {
      expect(await call(emulator, 'GET', '/app', authorization)).toMatchObject({
        status: 401,
        json: { message: JWT_MESSAGES.undecodable },
      });
    }
    expect(isAppPath('/app')).toBe(true);
    expect((await call(emulator, 'GET', '/app', jwt())).status).toBe(200);
  });

  it('accepts a JWT only on the App endpoints: elsewhere 401 Bad credentials', async () => {
    const { emulator, jwt } = world();
    expect((await call(emulator, 'GET', '/repos/octo-org/widgets/installation', jwt())).status).toBe(200);
    expect(await call(emulator, 'GET', '/repos/octo-org/widgets', jwt())).toMatchObject({
      status: 401,
      json: { message: 'Bad credentials' },
    });
  });
});

describe('GitHub App installations on the emulator', () => {
  it('finds the installation of the repository, 404 when the App is not installed on it', async () => {
    const installed = world();
    expect(
      await call(installed.emulator, 'GET', '/repos/octo-org/widgets/installation', installed.jwt()),
    ).toMatchObject({
      status: 200,
      json: { id: INSTALLATION_ID, app_id: APP_ID, account: { login: 'octo-org' } },
    });
    const elsewhere = world({ installations: [{ id: 5, account: 'someone-else' }] });
    const answer = await call(
      elsewhere.emulator,
      'GET',
      '/repos/octo-org/widgets/installation',
      elsewhere.jwt(),
    );
    expect(answer).toMatchObject({ status: 404, json: { message: 'Not Found' } });
  });

  it('mints a ghs_ token expiring an hour from the emulator clock, with permissions', async () => {
    const { mint } = world();
    const answer = await mint();
    expect(answer.status).toBe(201);
    expect(answer.json.token).toMatch(/^ghs_[A-Za-z0-9]{30,}$/);
    expect(Date.parse(String(answer.json.expires_at))).toBe(START + DEFAULT_TOKEN_LIFETIME_MS);
    expect(answer.json.permissions).toMatchObject({ contents: 'write', pull_requests: 'write' });
  });

  it('refuses a suspended installation with 403, an unknown one with 404', async () => {
    const { emulator, jwt, mint } = world();
    emulator.suspendInstallation(INSTALLATION_ID);
    expect(await mint()).toMatchObject({
      status: 403,
      json: { message: 'This installation has been suspended' },
    });
    expect((await call(emulator, 'POST', '/app/installations/9/access_tokens', jwt())).status).toBe(404);
    emulator.suspendInstallation(INSTALLATION_ID, false);
    expect((await mint()).status).toBe(201);
  });
});

describe('GitHub App installation tokens on the emulator', () => {
  it('act as the bot user until they expire, then 401 Bad credentials on REST and GraphQL', async () => {
    const { emulator, mint, advance, app } = world({ tokenLifetimeMs: 120_000 });
    const token = String((await mint()).json.token);
    const viewer = { query: 'query { viewer { login } }' };
    const issues = await call(emulator, 'GET', '/repos/octo-org/widgets/issues', `token ${token}`);
    expect(issues.status).toBe(200);
    const graphql = await call(emulator, 'POST', '/graphql', `bearer ${token}`, viewer);
    expect(graphql).toMatchObject({
      status: 200,
      json: { data: { viewer: { login: 'issueloop-test[bot]' } } },
    });
    expect(app.botLogin).toBe('issueloop-test[bot]');

    advance(120_000);
    expect(await call(emulator, 'GET', '/repos/octo-org/widgets/issues', `token ${token}`)).toMatchObject({
      status: 401,
      json: { message: 'Bad credentials' },
    });
    expect(await call(emulator, 'POST', '/graphql', `bearer ${token}`, viewer)).toMatchObject({
      status: 401,
      json: { message: 'Bad credentials' },
    });
  });

  it('shows the bot user at GET /users/<slug>[bot], whose id is not the App id', async () => {
    const { emulator, app } = world();
    const answer = await call(emulator, 'GET', '/users/issueloop-test[bot]', 'token ghp_emulator');
    expect(answer).toMatchObject({
      status: 200,
      json: { login: 'issueloop-test[bot]', type: 'Bot', id: app.botId },
    });
    expect(app.botId).not.toBe(APP_ID);
    expect((await call(emulator, 'GET', '/users/nobody-here', 'token ghp_emulator')).status).toBe(404);
  });
});
