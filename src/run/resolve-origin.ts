import { scrubEnv } from '../agent/tools/scrub-env.js';
import type { Redactor } from '../core/redact.js';
import { GitHubAppError } from '../github/app-error.js';
import { fixedToken, type TokenSource } from '../github/token-source.js';
import { GitError } from '../session/git/git-error.js';
import { type RemoteTarget, remoteUrl } from '../session/git/remote.js';
import type { RemoteCredential } from '../session/git/remote-auth.js';
import { githubHosts, githubToken } from './github-deps.js';
import type { Env } from './secrets.js';

/**
 * `origin` as the run will push to it, read before any agent ran: its configured URL (pushurl and
 * rewrites the agent could add are never used), the token for GitHub's host only (never sent to
 * another host origin might name), asked of `source` at each fetch and push so it is the one current
 * then (an App's renewed installation token), and the ssh agent for an ssh remote. `source` is the
 * environment's token (GITHUB_TOKEN, GH_TOKEN) unless given.
 */
export async function resolveOrigin(
  checkout: string,
  env: Env,
  redact: Redactor,
  source?: TokenSource,
): Promise<RemoteTarget> {
  const gitEnv = scrubEnv(env);
  const url = await remoteUrl(checkout, 'origin', { env: gitEnv, redact }).catch(() => 'origin');
  let host: string | undefined;
  try {
    host = new URL(url).host;
  } catch {
    host = undefined;
  }
  const token = githubToken(env);
  const credential = source ?? (token === undefined ? undefined : fixedToken(token));
  const github = host !== undefined && githubHosts(env).has(host) && /^https?:/.test(url);
  const ssh: Record<string, string> = env.SSH_AUTH_SOCK ? { SSH_AUTH_SOCK: env.SSH_AUTH_SOCK } : {};
  return {
    name: 'origin',
    url,
    env: ssh,
    ...(github && credential ? { credential: forGit(credential) } : {}),
  };
}

/**
 * `source` as git's credential. An App that can no longer act for the repository (uninstalled or
 * suspended mid-run: the mint at a fetch or push is refused) fails that git command as an `auth`
 * GitError carrying the App's fix, so the session reports the run's failure and no issue is charged;
 * left as it is, the session would classify the App's 404 or 403 as the issue's own failure.
 */
function forGit(source: TokenSource): RemoteCredential {
  const asGit = (err: unknown): never => {
    if (!(err instanceof GitHubAppError)) throw err;
    throw new GitError(
      err.message,
      { args: [], exitCode: undefined, stderrTail: '', errorClass: 'auth' },
      { cause: err },
    );
  };
  return {
    kind: source.kind,
    token: () => source.token().catch(asGit),
    renew: (rejected) => source.renew(rejected).catch(asGit),
  };
}
