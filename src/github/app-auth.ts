import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { Octokit } from '@octokit/rest';
import githubAppJwt from 'universal-github-app-jwt';
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import { appFailure } from './app-error.js';
import type { RepoRef } from './client.js';
import { retryNotices } from './retry-notices.js';
import type { TokenSource } from './token-source.js';

/**
 * A GitHub App's installation tokens as a `TokenSource`, minted with `@octokit/auth-app`. Its own
 * cache keeps a token 59 minutes by `Date.now`, whatever `expires_at` says; ours keeps one until
 * `expires_at` minus a margin on the injected clock, so a token is renewed before GitHub refuses it
 * and a short-lived one (an emulator's) renews too. The JWT is signed on the same clock.
 */

export interface AppAuthOptions {
  /** The App id, or its client id (`Iv…`). */
  appId: number | string;
  /** PEM text. */
  privateKey: string;
  /** Looked up for `repo` (`GET /repos/{owner}/{repo}/installation`) when not given. */
  installationId?: number;
  repo: RepoRef;
  apiUrl: string;
  userAgent: string;
  fetch: typeof fetch;
  clock: Clock;
  /** Told every token as it is minted, before anyone sends it (the redactor learns it). */
  onToken?: (token: string) => void;
  /** Where a retried request says so ("retrying 1/2 in 1 s…"), redacted; silent without. */
  notices?: { log: Log; redact: Redactor };
  /** Milliseconds per second of a retry's wait; tests shrink it. Default 1000. */
  retryUnitMs?: number;
}

export interface AppTokenSource extends TokenSource {
  readonly kind: 'app';
  /** The installation the tokens are for (looked up once when not configured). */
  installationId(): Promise<number>;
  /** Requests as the App itself (JWT): `GET /app` and the like. */
  appRequest<T>(route: string, parameters?: Record<string, unknown>): Promise<T>;
  /**
   * What GitHub granted the latest token (the access_tokens answer's `permissions`, e.g.
   * `issues: 'write'`); undefined until one is minted. Doctor judges the App's access by it.
   */
  permissions(): Readonly<Record<string, string>> | undefined;
}

/** Renew this long before `expires_at`: five minutes, or a quarter of a shorter token's life. */
export function renewalMarginMs(lifetimeMs: number): number {
  return Math.min(5 * 60_000, Math.max(0, Math.floor(lifetimeMs / 4)));
}

interface Cached {
  token: string;
  mintedAt: number;
  expiresAt: number;
  /** Minted by `renew` after GitHub refused the one before. */
  forced?: boolean;
}

/** auth-app's cache value: `token|createdAt|expiresAt|…`. */
function parseCached(value: string, mintedAt: number): Cached | undefined {
  const [token, , expiresAt] = value.split('|');
  const expires = Date.parse(expiresAt ?? '');
  return token && Number.isFinite(expires) ? { token, mintedAt, expiresAt: expires } : undefined;
}

const AppOctokit = Octokit.plugin(retryNotices, retry);

/** A token refused younger than this is not renewed (see `renew`). */
export const REMINT_FLOOR_MS = 60_000;

export function createAppTokenSource(options: AppAuthOptions): AppTokenSource {
  const { clock, repo } = options;
  const values = new Map<string, { value: string; mintedAt: number }>();
  let current: Cached | undefined;
  const fresh = (entry: Cached | undefined): entry is Cached =>
    entry !== undefined && clock.now() < entry.expiresAt - renewalMarginMs(entry.expiresAt - entry.mintedAt);
  const cache = {
    // auth-app mints when this is empty.
    get: (key: string): string => {
      const entry = values.get(key);
      return entry && fresh(parseCached(entry.value, entry.mintedAt)) ? entry.value : '';
    },
    set: (key: string, value: string): void => {
      const mintedAt = clock.now();
      values.set(key, { value, mintedAt });
      const parsed = parseCached(value, mintedAt);
      current = parsed ? { ...parsed, forced: forcing } : undefined;
      if (current) options.onToken?.(current.token);
    },
  };
  // A mint that meets a 5xx or a dropped connection is retried, as every other GitHub request is:
  // the hourly renewal of a long drain must not end it over a blip.
  const request = new AppOctokit({
    baseUrl: options.apiUrl,
    userAgent: options.userAgent,
    request: { fetch: options.fetch },
    retry: { retries: 2, retryAfterBaseValue: options.retryUnitMs ?? 1000 },
    ...(options.notices ? { retryNotice: options.notices } : {}),
    // A refusal reaches the user once, as a GitHubAppError naming the fix; not as Octokit's log line.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  }).request;
  const auth = createAppAuth({
    appId: options.appId,
    createJwt: async (appId) => {
      const jwt = await githubAppJwt({
        id: appId,
        privateKey: options.privateKey,
        now: Math.floor(clock.now() / 1000),
      });
      return { jwt: jwt.token, expiresAt: new Date(jwt.expiration * 1000).toISOString() };
    },
    request,
    cache,
    log: { warn: () => {} },
  });
  const context = { appId: options.appId, repo };

  async function asApp<T>(route: string, parameters: Record<string, unknown> = {}): Promise<T> {
    const { token } = await auth({ type: 'app' });
    const response = await request(route, { ...parameters, headers: { authorization: `bearer ${token}` } });
    return response.data as T;
  }

  /** A request as the App (`GET /app`); a refusal is the App's failure, naming its fix. */
  async function appRequest<T>(route: string, parameters: Record<string, unknown> = {}): Promise<T> {
    try {
      return await asApp<T>(route, parameters);
    } catch (err) {
      throw appFailure('app', err, context);
    }
  }

  let installation: Promise<number> | undefined;
  function installationId(): Promise<number> {
    if (options.installationId !== undefined) return Promise.resolve(options.installationId);
    installation ??= asApp<{ id: number }>('GET /repos/{owner}/{repo}/installation', {
      owner: repo.owner,
      repo: repo.name,
    }).then(
      (answer) => answer.id,
      (err: unknown) => {
        installation = undefined;
        throw appFailure('lookup', err, context);
      },
    );
    return installation;
  }

  let granted: Readonly<Record<string, string>> | undefined;
  let minting: Promise<string> | undefined;
  /** Whether the mint under way was forced by a refusal (`renew`). */
  let forcing = false;
  /** One mint at a time: concurrent callers share it. */
  function mint(refresh: boolean): Promise<string> {
    minting ??= (async () => {
      forcing = refresh;
      const id = await installationId();
      try {
        const answer = await auth({ type: 'installation', installationId: id, refresh });
        granted = { ...answer.permissions } as Record<string, string>;
        return answer.token;
      } catch (err) {
        throw appFailure('mint', err, { ...context, installationId: id });
      }
    })().finally(() => {
      minting = undefined;
    });
    return minting;
  }

  return {
    kind: 'app',
    installationId,
    appRequest,
    permissions: () => granted,
    token: async () => (fresh(current) && !minting ? current.token : mint(false)),
    renew: async (rejected) => {
      if (fresh(current) && current.token !== rejected) return current.token;
      // GitHub refusing the token a forced renewal minted a moment ago is not expiry (a revoked
      // installation, a server that refuses everything): another mint would fare no better, and each
      // request refused would mint one. The refusal stands until that token has aged.
      if (current?.token === rejected && current.forced && clock.now() - current.mintedAt < REMINT_FLOOR_MS) {
        return undefined;
      }
      return mint(true);
    },
  };
}
