// Kept apart from process-deps so that the CLI shell can redact without loading the logger.

export type Env = Readonly<Record<string, string | undefined>>;

/** The credentials issueloop is given, plus the values of any variables the user names as secret. */
export function secretsFromEnv(env: Env, extraNames: readonly string[] = []): string[] {
  const names = ['GITHUB_TOKEN', 'GH_TOKEN', 'ISSUELOOP_PROJECTS_TOKEN', 'ANTHROPIC_API_KEY', ...extraNames];
  return names
    .map((name) => env[name])
    .filter((value): value is string => typeof value === 'string' && value !== '');
}
