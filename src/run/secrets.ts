// Kept apart from process-deps so that the CLI shell can redact without loading the logger.

export type Env = Readonly<Record<string, string | undefined>>;

/** The credentials issueloop is given, plus the values of any variables the user names as secret. */
export function secretsFromEnv(env: Env, extraNames: readonly string[] = []): string[] {
  const names = ['GITHUB_TOKEN', 'GH_TOKEN', 'ISSUELOOP_PROJECTS_TOKEN', 'ANTHROPIC_API_KEY', ...extraNames];
  // A GitHub App's private key, when the variable holds it rather than a path to it (its file's text
  // and the installation tokens are learnt by the redactor when read and minted: run/app-token.ts).
  const values = [
    ...names.map((name) => env[name]),
    ...pemSecrets(env.ISSUELOOP_APP_PRIVATE_KEY ?? ''),
  ].filter((value): value is string => typeof value === 'string' && value !== '');
  // The Redis claim store's URL names a server that messages do show; only its credentials are secret.
  const redisUrl = env.ISSUELOOP_CLAIMS__REDIS_URL;
  return redisUrl ? [...values, ...urlCredentials(redisUrl)] : values;
}

/**
 * What to redact of a PEM private key (as text, or as one line with `\n` escapes): each line of its
 * base64 body. The whole key is too long for one pattern (the redactor's forms of a 1.7 KB secret
 * make a regular expression V8 refuses), and line by line a printed part of it goes too.
 */
export function pemSecrets(text: string): string[] {
  if (!text.includes('-----BEGIN')) return [];
  return text
    .replace(/\\n/g, '\n')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('-----'));
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
