// Kept apart from process-deps so that the CLI shell can redact without loading the logger.

export type Env = Readonly<Record<string, string | undefined>>;

/** The credentials issueloop is given, plus the values of any variables the user names as secret. */
export function secretsFromEnv(env: Env, extraNames: readonly string[] = []): string[] {
  const names = [
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'ISSUELOOP_PROJECTS_TOKEN',
    'ANTHROPIC_API_KEY',
    // A Redis URL may carry a password.
    'ISSUELOOP_CLAIMS__REDIS_URL',
    ...extraNames,
  ];
  return names
    .map((name) => env[name])
    .filter((value): value is string => typeof value === 'string' && value !== '')
    .flatMap(secretParts);
}

/**
 * What of a value is secret. A URL (the Redis one) is secret only for its password, as written and
 * decoded, since it can show up alone in a message; the server it names is not, and messages say it.
 */
function secretParts(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return [value];
  try {
    const { password } = new URL(value);
    return password ? [...new Set([value, password, decodeURIComponent(password)])] : [];
  } catch {
    return [value];
  }
}
