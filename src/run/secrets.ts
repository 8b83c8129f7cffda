// Kept apart from process-deps so that the CLI shell can redact without loading the logger.

import { OTLP_HEADER_NAMES } from '../agent/tools/scrub-env.js';

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
  const otlp = OTLP_HEADER_NAMES.flatMap((name) => headerValues(env[name]));
  // An OTLP endpoint, like the Redis URL, may carry a password (`user:pass@`, `?token=`).
  const urls = [redisUrl, ...OTLP_ENDPOINT_NAMES.map((name) => env[name])].filter(
    (url): url is string => typeof url === 'string' && url !== '',
  );
  return [...new Set([...values, ...otlp, ...urls.flatMap(urlCredentials)])];
}

/** The variables that name an OTLP collector, issueloop's own setting included. */
export const OTLP_ENDPOINT_NAMES: readonly string[] = Object.freeze([
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT',
  'ISSUELOOP_TELEMETRY__OTLP_ENDPOINT',
]);

/** Query parameters that carry a credential. */
const SECRET_PARAMS = ['password', 'token'];

/**
 * A URL as messages show it: a password (`user:pass@`) and `password=`/`token=` values masked, even
 * when the text does not parse as a URL (a configuration error names what was written).
 */
export function shownUrl(text: string): string {
  return text
    .replace(/(\/\/[^/\s:@]*):[^/\s@]*@/g, '$1:***@')
    .replace(/([?&](?:password|token)=)[^&#\s]*/gi, '$1***');
}

/**
 * An OTLP headers variable's secrets: the whole text and each header's value, as written and
 * percent-decoded (the form the exporter sends). A bearer token is also kept without its scheme.
 */
function headerValues(text: string | undefined): string[] {
  if (!text) return [];
  const values = text.split(',').flatMap((pair) => {
    const at = pair.indexOf('=');
    const value = at < 0 ? '' : pair.slice(at + 1).trim();
    if (value === '') return [];
    let decoded = value;
    try {
      decoded = decodeURIComponent(value);
    } catch {}
    const bare = decoded.replace(/^(bearer|basic|token)\s+/i, '');
    return [value, decoded, bare];
  });
  return [...new Set([text, ...values])].filter((v) => v.length >= 4);
}

/**
 * The credentials in a URL: the whole URL, its password (as written and decoded, since either can
 * show up alone in a message) and a `password` or `token` query parameter, when it has any. A user name such as
 * `default` is not a secret, and redacting it would blank an ordinary word everywhere.
 */
function urlCredentials(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [value];
  }
  const params = SECRET_PARAMS.map((name) => url.searchParams.get(name) ?? '');
  const parts = [url.password, ...params].filter((p) => p !== '');
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
