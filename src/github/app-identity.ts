import type { AppTokenSource } from './app-auth.js';
import type { GitHubClient } from './client.js';
import type { TokenSource } from './token-source.js';

/**
 * Who a GitHub App's commits are by: its bot user, `<slug>[bot]`, with the noreply address GitHub
 * links to that user (`<user id>+<slug>[bot]@users.noreply.github.com`; the user id is the bot's,
 * from `GET /users/<slug>[bot]`, not the App id).
 */

export interface GitIdentity {
  name: string;
  email: string;
}

/** issueloop's commit author when the configuration names none (config `pr.author`'s default). */
export const DEFAULT_AUTHOR: Readonly<GitIdentity> = Object.freeze({
  name: 'issueloop',
  email: 'issueloop@users.noreply.github.com',
});

export function isAppTokenSource(source: TokenSource): source is AppTokenSource {
  return source.kind === 'app' && 'appRequest' in source;
}

/** The App's bot user as a commit identity: `GET /app` (as the App) then `GET /users/<slug>[bot]`. */
export async function appBotIdentity(gh: GitHubClient, source: AppTokenSource): Promise<GitIdentity> {
  const app = await gh.call('read the GitHub App (GET /app)', () =>
    source.appRequest<{ slug: string }>('GET /app'),
  );
  const login = `${app.slug}[bot]`;
  const user = await gh.call(`read the App's bot user ${login}`, () =>
    gh.rest.users.getByUsername({ username: login }),
  );
  return { name: login, email: `${user.data.id}+${login}@users.noreply.github.com` };
}

/**
 * The commit author of a run: an explicit `pr.author` wins; otherwise, with a GitHub App, its bot
 * user (so commits show as the App's); otherwise the default.
 */
export async function commitAuthorFor(gh: GitHubClient, configured: GitIdentity): Promise<GitIdentity> {
  const explicit = configured.name !== DEFAULT_AUTHOR.name || configured.email !== DEFAULT_AUTHOR.email;
  if (explicit || !isAppTokenSource(gh.tokenSource)) return configured;
  return appBotIdentity(gh, gh.tokenSource);
}
