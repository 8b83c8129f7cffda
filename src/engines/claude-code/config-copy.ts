import { scrubEnv } from '../../agent/tools/scrub-env.js';

/**
 * What of Claude Code's configuration the sandbox's throwaway copy may hold: no login (its OAuth
 * file is never copied), and no field that is or makes a credential. Settings keep working, but a
 * key in `primaryApiKey`, an `apiKeyHelper` script, a token in `env` or in an MCP server's
 * environment or headers (`X-Api-Key`, `Authorization`, `Cookie`), the password of any URL (an MCP
 * server's `url` or `args`), and an `env` that reroutes the API (ANTHROPIC_BASE_URL, which settings
 * would let win over the proxy's) are left out. MCP server definitions themselves stay: a stdio
 * server runs in the sandbox with the session's network, a remote one is reached through the egress
 * proxy (its host must be in `allow_domains`), and neither has the credentials it had outside.
 */

/** Claude Code's own login: OAuth access and refresh tokens. Never copied. */
export const LOGIN_FILE = '.credentials.json';

/**
 * Keys that hold or produce a credential, at any depth (`primaryApiKey`, `apiKeyHelper`,
 * `oauthAccount`, an MCP server's `X-Api-Key`, `Authorization`, `Cookie` or `x-auth-token` header…),
 * whatever separates their words: `api-key`, `api_key`, `apiKey`, `API KEY`, `api.key`.
 */
const CREDENTIAL_KEY =
  /(api|access|private|secret|client|session)[-_. ]?key|token|secret|passw|pwd|credential|oauth|auth|cookie|bearer|session|signature/i;
/** A header value that is itself a credential, whatever the header's name (`X-Custom: Bearer …`). */
const CREDENTIAL_VALUE = /^\s*(bearer|basic|token|digest)\s+\S/i;
/** A URL's userinfo with a password (`postgresql://admin:pw@db/prod`), anywhere in a string. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:]*):[^\s/?#@]*@/gi;
/** Variables a settings `env` may not set in the copy: they would reroute or re-authenticate `claude`. */
const ROUTING = [
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_UNIX_SOCKET',
  'ANTHROPIC_BEDROCK_BASE_URL',
  'ANTHROPIC_VERTEX_BASE_URL',
];

/** A string without the passwords of the URLs in it (the user name stays). */
function withoutPasswords(text: string): string {
  return text.replace(URL_PASSWORD, '$1$2@');
}

function scrubbed(value: unknown, key: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, undefined));
  if (typeof value === 'string') return withoutPasswords(value);
  if (!value || typeof value !== 'object') return value;
  if (key === 'env') {
    const strings = Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const { GIT_TERMINAL_PROMPT: _added, ...kept } = scrubEnv(strings, ROUTING);
    return scrubbed(kept, undefined);
  }
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    const secret = typeof inner === 'string' && CREDENTIAL_VALUE.test(inner);
    if (!CREDENTIAL_KEY.test(name) && !secret) out[name] = scrubbed(inner, name);
  }
  return out;
}

/**
 * The text to copy for a configuration file, or undefined when it must not be copied: the login
 * file, and any file that still holds one of `secrets` (a credential's value) after scrubbing.
 */
export function configCopy(name: string, text: string, secrets: readonly string[]): string | undefined {
  if (name === LOGIN_FILE) return undefined;
  let copy = text;
  if (name.endsWith('.json')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      const clean = JSON.stringify(scrubbed(parsed, undefined));
      // A file with nothing to drop is copied byte for byte.
      if (clean !== JSON.stringify(parsed)) copy = `${clean}\n`;
    } catch {
      // Not JSON after all: copied as it is, if it holds no secret.
    }
  }
  return secrets.some((secret) => secret.length >= 8 && copy.includes(secret)) ? undefined : copy;
}
