import { generateKeyPairSync, sign } from 'node:crypto';
import { createGitHubEmulator, type GitHubEmulator, type SeedApp } from '../../src/emulators/github/index.js';

/** An App's key pair, made in the test (RSA 2048, PEM): the emulator gets the public half. */
export function appKeys(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A JWT with exactly these claims, RS256-signed with `privateKeyPem` (to craft bad ones too). */
export function signJwt(privateKeyPem: string, claims: Record<string, unknown>, alg = 'RS256'): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg, typ: 'JWT' })}.${encode(claims)}`;
  const signature = sign('RSA-SHA256', Buffer.from(unsigned), privateKeyPem).toString('base64url');
  return `${unsigned}.${signature}`;
}

export const APP_ID = 4242;
export const CLIENT_ID = 'Iv23liEmulatedApp';
export const INSTALLATION_ID = 777;

let shared: ReturnType<typeof appKeys> | undefined;

/** The App "issueloop-test" installed on octo-org (unless `more` says otherwise), with its private key. */
export function installedApp(emulator: GitHubEmulator, more: Partial<SeedApp> = {}) {
  // One key pair per test file: making one takes a tenth of a second.
  shared ??= appKeys();
  const keys = shared;
  const bot = emulator.addApp({
    id: APP_ID,
    clientId: CLIENT_ID,
    slug: 'issueloop-test',
    publicKeyPem: keys.publicKeyPem,
    installations: [{ id: INSTALLATION_ID, account: 'octo-org' }],
    ...more,
  });
  return { ...keys, ...bot };
}

const BOARD_STATUSES = ['Todo', 'In Progress', 'In Review', 'Done', 'Needs human'];

/**
 * A fresh emulator of octo-org/widgets (an organisation, with board #3) and the App installed on it,
 * set up as `more` says; `env` is what a command needs to act as the App alone (no token).
 */
export function appWorld(more: Parameters<typeof installedApp>[1] = {}) {
  const emulator = createGitHubEmulator({ owner: 'octo-org', repo: 'widgets' });
  const app = installedApp(emulator, more);
  emulator.addLabel('issueloop');
  emulator.addProject({ title: 'Board', number: 3, statusOptions: BOARD_STATUSES });
  const env: Record<string, string> = {
    ISSUELOOP_APP_ID: String(APP_ID),
    ISSUELOOP_APP_PRIVATE_KEY: app.privateKeyPem,
    GITHUB_API_URL: emulator.baseUrl,
  };
  return { emulator, app, env };
}
