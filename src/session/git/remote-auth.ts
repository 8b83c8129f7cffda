import { GitError } from './git-error.js';
import type { GitOptions } from './run-git.js';

/**
 * Where the token for a remote comes from at the moment git sends it: src/github/token-source.ts's
 * `TokenSource` (a fixed token, or a GitHub App's installation tokens renewed before they expire).
 * Asked at every fetch, push and ls-remote, never once for the run, so a drain longer than a
 * token's life keeps pushing.
 */
export interface RemoteCredential {
  readonly kind: 'fixed' | 'app';
  token(): Promise<string>;
  /** A token that may work after `rejected` was refused, or undefined when there is none to try. */
  renew(rejected: string): Promise<string | undefined>;
}

/**
 * The environment that authenticates git's requests to an https remote with `token` (GitHub's
 * `x-access-token` basic scheme), replacing any extraheader the checkout has (actions/checkout's).
 * Nothing for other schemes: an ssh remote uses the user's agent. Given through GIT_CONFIG_*
 * variables, it lives in that git process's environment only: never in a config file on disk.
 * Redirects are not followed: git would send the header with every request to wherever the first
 * answer pointed (curl drops it only on the redirected request itself), so a redirect to another
 * host got the token and the push (found by the attack tests).
 */
export function tokenAuthEnv(url: string, token: string | undefined): Record<string, string> {
  if (!token) return {};
  let origin: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return {};
    origin = `${parsed.protocol}//${parsed.host}/`;
  } catch {
    return {};
  }
  const key = `http.${origin}.extraheader`;
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: '3',
    // An empty value resets the list: the checkout's own header must not be sent beside ours.
    GIT_CONFIG_KEY_0: key,
    GIT_CONFIG_VALUE_0: '',
    GIT_CONFIG_KEY_1: key,
    GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${basic}`,
    GIT_CONFIG_KEY_2: 'http.followRedirects',
    GIT_CONFIG_VALUE_2: 'false',
  };
}

/** Whether git failed because the server refused the credential (401, or 403 for a push it may not make). */
export function refusedCredential(error: unknown): error is GitError {
  return error instanceof GitError && (error.errorClass === 'auth' || error.errorClass === 'permission');
}

function fixFor(credential: RemoteCredential, errorClass: 'auth' | 'permission'): string {
  if (credential.kind === 'app') {
    return errorClass === 'auth'
      ? 'GitHub refused a freshly minted installation token: check that the App is installed on the repository and not suspended'
      : "give the GitHub App Contents read & write on the repository (and Workflows if the change touches .github/workflows), then accept the new permissions in the installation's settings";
  }
  return errorClass === 'auth'
    ? 'set GH_TOKEN or GITHUB_TOKEN (GH_TOKEN wins) to a token GitHub accepts, with access to the repository'
    : 'give the token (GH_TOKEN or GITHUB_TOKEN) contents write access to the repository (classic token: the `repo` scope)';
}

/** The refusal that ends it: GitHub's words, then what to do about it, still an auth (or permission) GitError. */
function finalRefusal(error: GitError, credential: RemoteCredential, renewed: boolean): GitError {
  const errorClass = error.errorClass === 'permission' ? 'permission' : 'auth';
  const refused =
    errorClass === 'auth' ? 'GitHub refused the token' : 'GitHub refused the push to this token';
  const after = renewed ? ', and again a renewed one' : '';
  const message = `${error.message}. ${refused}${after}: ${fixFor(credential, errorClass)}`;
  return new GitError(
    message,
    { args: error.args, exitCode: error.exitCode, stderrTail: error.stderrTail, errorClass },
    { cause: error },
  );
}

/**
 * A redirect git was told not to follow (tokenAuthEnv), named with its fix; any other error as it is.
 * Its class stays (curl's 30x reads as a network failure: a second one ends the run).
 */
function namedRedirect(error: unknown): unknown {
  if (!(error instanceof GitError) || !/returned error: 30[123578]\b/.test(error.message)) return error;
  const message = `${error.message}. origin answered with a redirect, which issueloop does not follow with its token (it would go to wherever the redirect points): set origin to the repository's current URL (git remote set-url origin <url>)`;
  const { args, exitCode, stderrTail, errorClass } = error;
  return new GitError(message, { args, exitCode, stderrTail, errorClass }, { cause: error });
}

/**
 * Runs one git command against `url` with the credential's token of the moment. When the server
 * refuses it, the credential renews the token (an App mints a fresh one) and the command runs once
 * more with it; a second refusal, or none to try, is a GitError that names the fix. Without a
 * credential the command runs as given.
 */
export async function withRemoteAuth<T>(
  url: string,
  credential: RemoteCredential | undefined,
  options: GitOptions,
  run: (options: GitOptions) => Promise<T>,
): Promise<T> {
  if (!credential) return run(options);
  const authed = (token: string): GitOptions => ({
    ...options,
    env: { ...(options.env ?? process.env), ...tokenAuthEnv(url, token) },
  });
  const token = await credential.token();
  try {
    return await run(authed(token));
  } catch (error) {
    if (!refusedCredential(error)) throw namedRedirect(error);
    const renewed = await credential.renew(token);
    if (renewed === undefined || renewed === token) throw finalRefusal(error, credential, false);
    try {
      return await run(authed(renewed));
    } catch (again) {
      throw refusedCredential(again) ? finalRefusal(again, credential, true) : namedRedirect(again);
    }
  }
}
