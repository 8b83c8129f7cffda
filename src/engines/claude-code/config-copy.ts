import { scrubEnv } from '../../agent/tools/scrub-env.js';

/**
 * What of Claude Code's configuration the sandbox's throwaway copy may hold: no login (its OAuth
 * file is never copied), and no field that is or makes a credential. Settings keep working, but a
 * key in `primaryApiKey`, an `apiKeyHelper` script, a token in `env` or in an MCP server's
 * environment, and an `env` that reroutes the API (ANTHROPIC_BASE_URL, which settings would let win
 * over the proxy's) are left out.
 */

/** Claude Code's own login: OAuth access and refresh tokens. Never copied. */
export const LOGIN_FILE = '.credentials.json';

/** Keys that hold or produce a credential, at any depth (`primaryApiKey`, `apiKeyHelper`, `oauthAccount`…). */
const CREDENTIAL_KEY = /api_?key|token|secret|passw|credential|oauth|auth/i;
/** Variables a settings `env` may not set in the copy: they would reroute or re-authenticate `claude`. */
const ROUTING = [
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_UNIX_SOCKET',
  'ANTHROPIC_BEDROCK_BASE_URL',
  'ANTHROPIC_VERTEX_BASE_URL',
];

function scrubbed(value: unknown, key: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, undefined));
  if (!value || typeof value !== 'object') return value;
  if (key === 'env') {
    const strings = Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const { GIT_TERMINAL_PROMPT: _added, ...kept } = scrubEnv(strings, ROUTING);
    return kept;
  }
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    if (!CREDENTIAL_KEY.test(name)) out[name] = scrubbed(inner, name);
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
