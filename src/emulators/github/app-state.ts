import { createPublicKey, type KeyObject } from 'node:crypto';
import { sha1 } from './ids.js';
import type { Store } from './store.js';
import type { SeedApp } from './types.js';

/** An installation token lasts an hour on GitHub. */
export const DEFAULT_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

/** What an App is granted unless a test says otherwise: what issueloop asks of one. */
const DEFAULT_PERMISSIONS: Readonly<Record<string, string>> = {
  contents: 'write',
  issues: 'write',
  pull_requests: 'write',
  checks: 'read',
  actions: 'read',
  metadata: 'read',
  organization_projects: 'write',
};

export interface InstallationRecord {
  id: number;
  account: string;
  suspended: boolean;
}

export interface AppRecord {
  id: number;
  clientId: string | undefined;
  slug: string;
  name: string;
  publicKey: KeyObject;
  /** `<slug>[bot]`, a user of its own (its id is not the App's). */
  botLogin: string;
  permissions: Readonly<Record<string, string>>;
  tokenLifetimeMs: number;
  installations: Map<number, InstallationRecord>;
}

/** The GitHub Apps a test registered, found by what a JWT names as its issuer. */
export interface AppRegistry {
  add(seed: SeedApp): AppRecord;
  /** By App id (a number or its decimal text) or client id. */
  byIssuer(issuer: unknown): AppRecord | undefined;
  /** The App's installation on the emulated repository's owner, if any. */
  installationOnRepo(app: AppRecord): InstallationRecord | undefined;
  setSuspended(installationId: number, suspended: boolean): void;
  /** A fresh installation token for `installation`, recorded in the store with its expiry. */
  mint(app: AppRecord, installation: InstallationRecord): { token: string; expiresAt: number };
}

export function createAppRegistry(store: Store): AppRegistry {
  const apps: AppRecord[] = [];
  let minted = 0;
  // The bot is no collaborator: its comments carry the association NONE, as on GitHub.
  function installationOnRepo(app: AppRecord): InstallationRecord | undefined {
    const owner = store.owner.login.toLowerCase();
    return [...app.installations.values()].find((i) => i.account.toLowerCase() === owner);
  }
  return {
    add(seed) {
      const botLogin = `${seed.slug}[bot]`;
      store.ensureUser(botLogin, 'Bot');
      const installations = new Map(
        seed.installations.map((i) => [
          i.id,
          { id: i.id, account: i.account, suspended: i.suspended ?? false },
        ]),
      );
      const app: AppRecord = {
        id: seed.id,
        clientId: seed.clientId,
        slug: seed.slug,
        name: seed.name ?? seed.slug,
        publicKey: createPublicKey(seed.publicKeyPem),
        botLogin,
        permissions: { ...(seed.permissions ?? DEFAULT_PERMISSIONS) },
        tokenLifetimeMs: seed.tokenLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS,
        installations,
      };
      apps.push(app);
      return app;
    },
    byIssuer(issuer) {
      if (typeof issuer === 'number') return apps.find((a) => a.id === issuer);
      if (typeof issuer !== 'string' || issuer === '') return undefined;
      return apps.find((a) => String(a.id) === issuer || a.clientId === issuer);
    },
    installationOnRepo,
    setSuspended(installationId, suspended) {
      const found = apps.map((a) => a.installations.get(installationId)).find((i) => i !== undefined);
      if (!found) throw new Error(`emulator: no installation ${installationId}`);
      found.suspended = suspended;
    },
    mint(app, installation) {
      minted += 1;
      // Whole seconds, as `expires_at` says them, so the record and the answer agree exactly.
      const expiresAt = Math.floor((store.now() + app.tokenLifetimeMs) / 1000) * 1000;
      const token = `ghs_${sha1(`app:${app.id}:installation:${installation.id}:${minted}`).slice(0, 36)}`;
      store.tokens.set(token, {
        login: app.botLogin,
        kind: 'installation',
        scopes: [],
        expiresAt,
        permissions: app.permissions,
      });
      return { token, expiresAt };
    },
  };
}
