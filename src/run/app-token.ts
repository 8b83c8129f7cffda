import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { APP_KEY_ENV } from '../config/github-schema.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import { learnSecret, type Redactor } from '../core/redact.js';
import { type AppTokenSource, createAppTokenSource } from '../github/app-auth.js';
import type { RepoRef } from '../github/client.js';
import type { Env } from './secrets.js';

/**
 * The GitHub App of a run, when one is configured: its id (github.app.id, ISSUELOOP_APP_ID) with its
 * private key (ISSUELOOP_APP_PRIVATE_KEY). Either one without the other is a usage error naming the
 * missing one; neither leaves the run on its fixed token.
 */

/**
 * The PEM private key from the variable: PEM text (a single line with `\n` escapes too, as `.env`
 * files and CI secrets hold it) or a path to a PEM file. Its text never appears in a message.
 */
export function readAppPrivateKey(value: string, cwd: string): string {
  const trimmed = value.trim();
  let pem: string;
  if (trimmed.includes('-----BEGIN')) {
    pem = trimmed.replace(/\\n/g, '\n');
  } else {
    const path = resolve(cwd, trimmed);
    try {
      pem = readFileSync(path, 'utf8');
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new UsageError(
        `${APP_KEY_ENV} is neither a PEM private key nor a readable file (${path}: ${String(code ?? err)}): set it to the App's private key, the text of the .pem file GitHub gave you or the file's path`,
      );
    }
  }
  try {
    createPrivateKey(pem);
  } catch {
    throw new UsageError(
      `${APP_KEY_ENV} does not hold a PEM private key: use the .pem file from the App's settings (Private keys → Generate a private key), its text or its path`,
    );
  }
  return pem;
}

/**
 * The file the App's key is read from when ISSUELOOP_APP_PRIVATE_KEY names one (resolved as
 * readAppPrivateKey does), else undefined: the sandbox covers it, since a path in /etc, /opt or a
 * directory shown read-only would let the agent read the key.
 */
export function appKeyFile(env: Env, cwd: string): string | undefined {
  const value = env[APP_KEY_ENV]?.trim();
  if (!value || value.includes('-----BEGIN')) return undefined;
  return resolve(cwd, value);
}

export interface AppSourceInput {
  env: Env;
  config: Config;
  cwd: string;
  repo: RepoRef;
  apiUrl: string;
  userAgent: string;
  fetch: typeof fetch;
  clock: Clock;
  /** Learns every minted token, so none reaches a log, the ledger or a comment (the key goes by its PEM shape). */
  redact: Redactor;
  /** Where a retried mint says so. */
  log?: Log;
}

/** Whether the command works as a GitHub App (an id or a key set: either alone is refused by `appCredentials`). */
export function appConfigured(env: Env, config: Config): boolean {
  return config.github.app !== undefined || Boolean(env[APP_KEY_ENV]);
}

export interface AppCredentials {
  id: number | string;
  installationId?: number;
  /** PEM text, checked to be a private key. */
  privateKey: string;
}

/**
 * The App's id, installation and key when an App is configured, undefined otherwise; an id without
 * a key, a key without an id, or a key that is none is a usage error naming the fix.
 */
export function appCredentials(input: { env: Env; config: Config; cwd: string }): AppCredentials | undefined {
  const app = input.config.github.app;
  const keyText = input.env[APP_KEY_ENV] || undefined;
  if (!app && !keyText) return undefined;
  if (!app) {
    throw new UsageError(
      `${APP_KEY_ENV} is set but no App id: set ISSUELOOP_APP_ID (or github.app.id) to the App's id or client id`,
    );
  }
  if (!keyText) {
    throw new UsageError(
      `a GitHub App is configured (github.app.id ${app.id}) but ${APP_KEY_ENV} is not set: export the App's private key (the PEM text or the path to the .pem file)`,
    );
  }
  const privateKey = readAppPrivateKey(keyText, input.cwd);
  return {
    id: app.id,
    ...(app.installation_id === undefined ? {} : { installationId: app.installation_id }),
    privateKey,
  };
}

/** The App's token source when an App is configured; undefined for a run on a fixed token. */
export function tokenSourceFor(input: AppSourceInput): AppTokenSource | undefined {
  const app = appCredentials(input);
  if (!app) return undefined;
  return createAppTokenSource({
    appId: app.id,
    privateKey: app.privateKey,
    ...(app.installationId === undefined ? {} : { installationId: app.installationId }),
    repo: input.repo,
    apiUrl: input.apiUrl,
    userAgent: input.userAgent,
    fetch: input.fetch,
    clock: input.clock,
    onToken: (token) => learnSecret(input.redact, token),
    ...(input.log
      ? { notices: { log: input.log.child({ component: 'github' }), redact: input.redact } }
      : {}),
  });
}
