// Kept apart from process-deps so that the CLI shell can redact without loading the logger.

export type Env = Readonly<Record<string, string | undefined>>;

/** The credentials issueloop is given, plus the values of any variables the user names as secret. */
export function secretsFromEnv(env: Env, extraNames: readonly string[] = []): string[] {
  const names = ['GITHUB_TOKEN', 'GH_TOKEN', 'ISSUELOOP_PROJECTS_TOKEN', 'ANTHROPIC_API_KEY', ...extraNames];
  // A GitHub App's private key (ISSUELOOP_APP_PRIVATE_KEY) is redacted by its PEM shape (core/redact.ts);
  // the installation tokens are learnt as they are minted (run/app-token.ts).
  const values = names
    .map((name) => env[name])
    .filter((value): value is string => typeof value === 'string' && value !== '');
  // The Redis claim store's URL names a server that messages do show; only its credentials are secret.
  const redisUrl = env.ISSUELOOP_CLAIMS__REDIS_URL;
  return redisUrl ? [...values, ...urlCredentials(redisUrl)] : values;
}

/**
 * The credentials in a URL: the whole URL, its password (as written and decoded, since either can
 * show up alone in a message) and a `password` query parameter, when it has any. A user name such as
 * `default` is not a secret, and redacting it would blank an ordinary word everywhere.
 */
function urlCredentials(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [value];
  }
  const parts = [url.password, url.searchParams.get('password') ?? ''].filter((p) => p !== '');
  if (parts.length === 0) return [];
  const decoded = parts.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return [...new Set([value, ...parts, ...decoded])];
}
