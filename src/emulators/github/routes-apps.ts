import { checkJwt, JWT_MESSAGES } from './app-jwt.js';
import type { AppRecord, AppRegistry, InstallationRecord } from './app-state.js';
import { isoSeconds } from './ids.js';
import { created, errorReply, notFound, ok, type Reply } from './replies.js';
import { type Urls, userJson } from './serialize.js';
import type { Store } from './store.js';

/**
 * The endpoints an App reaches as itself, with a JWT: `GET /app`, the repository's installation and
 * minting an installation token. Any other credential is refused there, as on GitHub; a JWT is
 * refused everywhere else (the handler does not know it as a token).
 */

export interface AppRequest {
  apps: AppRegistry;
  store: Store;
  method: string;
  /** The path relative to the base URL. */
  rel: string;
  authorization: string | null;
  urls: Urls;
}

const APP_PATH = /^\/app(?:\/installations\/[^/]+\/access_tokens)?$|^\/repos\/[^/]+\/[^/]+\/installation$/;

export function isAppPath(rel: string): boolean {
  return APP_PATH.test(rel);
}

function installationJson(store: Store, app: AppRecord, installation: InstallationRecord, urls: Urls) {
  const account = store.findUser(installation.account) ?? store.ensureUser(installation.account);
  return {
    id: installation.id,
    account: userJson(account, urls),
    app_id: app.id,
    app_slug: app.slug,
    client_id: app.clientId ?? null,
    target_type: account.type === 'Organization' ? 'Organization' : 'User',
    repository_selection: 'all',
    permissions: app.permissions,
    events: [],
    access_tokens_url: `${urls.api}/app/installations/${installation.id}/access_tokens`,
    suspended_at: installation.suspended ? isoSeconds(store.now()) : null,
  };
}

function appJson(store: Store, app: AppRecord, urls: Urls) {
  return {
    id: app.id,
    slug: app.slug,
    client_id: app.clientId ?? null,
    node_id: store.ids.node('A', `app:${app.id}`),
    name: app.name,
    owner: userJson(store.owner, urls),
    html_url: `${urls.html}/apps/${app.slug}`,
    permissions: app.permissions,
    events: [],
    installations_count: app.installations.size,
  };
}

function mint(request: AppRequest, app: AppRecord, idText: string): Reply {
  const installation = /^\d+$/.test(idText) ? app.installations.get(Number(idText)) : undefined;
  if (!installation) return notFound();
  if (installation.suspended) return errorReply(403, 'This installation has been suspended');
  const { token, expiresAt } = request.apps.mint(app, installation);
  return created({
    token,
    expires_at: isoSeconds(expiresAt),
    permissions: app.permissions,
    repository_selection: 'all',
  });
}

/** The answer to a request on an App endpoint, or undefined when `rel` is not one. */
export function appEndpoint(request: AppRequest): Reply | undefined {
  const { store, rel, method, urls } = request;
  if (!isAppPath(rel)) return undefined;
  const bearer = /^bearer\s+(\S+)$/i.exec(request.authorization?.trim() ?? '')?.[1];
  const check = bearer
    ? checkJwt(bearer, request.apps, store.now())
    : { ok: false as const, message: JWT_MESSAGES.undecodable };
  if (!check.ok) return errorReply(401, check.message);
  const { app } = check;
  const parts = rel.split('/');
  if (rel === '/app') return method === 'GET' ? ok(appJson(store, app, urls)) : notFound();
  if (parts[1] === 'app') return method === 'POST' ? mint(request, app, parts[3] ?? '') : notFound();
  if (method !== 'GET') return notFound();
  const [, , owner = '', repo = ''] = parts;
  const here =
    owner.toLowerCase() === store.owner.login.toLowerCase() &&
    repo.toLowerCase() === store.repo.name.toLowerCase();
  const installation = here ? request.apps.installationOnRepo(app) : undefined;
  return installation ? ok(installationJson(store, app, installation, urls)) : notFound();
}
