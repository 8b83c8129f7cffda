/** The standard variables that carry OTLP exporters' headers: secrets, like tokens. */
export const OTLP_HEADER_NAMES: readonly string[] = Object.freeze([
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
  'OTEL_EXPORTER_OTLP_LOGS_HEADERS',
]);

/** Variables the agent's commands never see: the harness's credentials and the ssh agent that signs pushes. */
export const SECRET_ENV_NAMES: readonly string[] = Object.freeze([
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'ANTHROPIC_API_KEY',
  'ISSUELOOP_PROJECTS_TOKEN',
  // A GitHub App's private key (PEM text or a path to it): whoever holds it mints tokens.
  'ISSUELOOP_APP_PRIVATE_KEY',
  // The claim store's URL, which may carry a Redis password.
  'ISSUELOOP_CLAIMS__REDIS_URL',
  // Telemetry's OTLP headers carry the collector's credentials (an API key, a bearer token).
  ...OTLP_HEADER_NAMES,
  'SSH_AUTH_SOCK',
  // Credential helpers hand out what the variables above would have.
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'VSCODE_GIT_IPC_HANDLE',
]);

/** Any variable whose name contains one of these (case-insensitive) is treated as a secret. */
export const SECRET_NAME_PATTERNS: readonly string[] = Object.freeze([
  'TOKEN',
  'SECRET',
  'KEY',
  'PASSWORD',
  'CREDENTIAL',
]);

/**
 * Any variable with one of these as a whole `_`-separated word is a secret too: `GITHUB_PAT`,
 * `NPM_CONFIG__AUTH`, `SENTRY_DSN`, `SLACK_WEBHOOK_URL` (whole words, so that PATH stays).
 */
export const SECRET_NAME_WORDS: readonly string[] = Object.freeze([
  'PAT',
  'AUTH',
  'DSN',
  'PASS',
  'PASSWD',
  'WEBHOOK',
  'COOKIE',
]);

function isSecretName(name: string, dropped: ReadonlySet<string>): boolean {
  const upper = name.toUpperCase();
  if (dropped.has(upper) || SECRET_NAME_PATTERNS.some((pattern) => upper.includes(pattern))) return true;
  const words = upper.split('_');
  return SECRET_NAME_WORDS.some((word) => words.includes(word));
}

/**
 * A URL with a password in it (`postgres://app:hunter2@db/app`, `https://collector/?token=…`) is a
 * secret whatever its name.
 */
export function holdsCredentials(value: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i.test(value) ||
    /^[a-z][a-z0-9+.-]*:\/\/[^\s]*[?&](password|token)=[^&#\s]/i.test(value)
  );
}

/**
 * The environment for the agent's commands: `env` without secrets (the names above, `extraNames`, and
 * any name matching a pattern), without unset values, and with git unable to prompt for credentials.
 * Over-matching (e.g. `KEYTAB_PATH`) is accepted: a missing variable fails loudly, a leaked token does not.
 */
export function scrubEnv(
  env: Readonly<Record<string, string | undefined>>,
  extraNames: readonly string[] = [],
): Record<string, string> {
  // Names compare case-insensitively: a differently cased copy of a secret is still the secret.
  const dropped = new Set([...SECRET_ENV_NAMES, ...extraNames].map((name) => name.toUpperCase()));
  const kept = Object.entries(env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !isSecretName(entry[0], dropped) && !holdsCredentials(entry[1]),
  );
  // fromEntries defines own properties, so a variable named `__proto__` cannot touch the prototype.
  return { ...Object.fromEntries(kept), GIT_TERMINAL_PROMPT: '0' };
}

/**
 * Variables scrubEnv drops whose values are not looked for in a diff: sockets and helper programs,
 * and a GitHub App's key (a path, or PEM text the diff scan finds by its shape; as a 1.7 KB value its
 * patterns took the scan 11 s).
 */
const NOT_VALUES = new Set([
  'SSH_AUTH_SOCK',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'VSCODE_GIT_IPC_HANDLE',
  'ISSUELOOP_APP_PRIVATE_KEY',
]);

/**
 * The values scrubEnv keeps from the agent because they are secrets (the credentials, `extraNames`,
 * names like `*TOKEN*`, URLs with a password): what the harness looks for in the agent's diff.
 */
export function secretValues(
  env: Readonly<Record<string, string | undefined>>,
  extraNames: readonly string[] = [],
): string[] {
  const kept = scrubEnv(env, extraNames);
  return Object.entries(env)
    .filter(
      ([name, value]) =>
        value !== undefined && value !== '' && !(name in kept) && !NOT_VALUES.has(name.toUpperCase()),
    )
    .map(([, value]) => value as string);
}
