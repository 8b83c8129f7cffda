/**
 * Secret redaction for everything that leaves the process: logs, comments, the ledger, prompts.
 * Known token shapes are removed by pattern; configured secret values (the tokens issueloop was given,
 * plus any variable the user names) are removed in every encoding an exfiltration would use.
 */
import { markdownViews, renderedMatches, renderedView, type ViewOptions } from './rendered-view.js';
import { MIN_DERIVED_LENGTH, type SecretForm, secretForms, secretsPattern } from './secret-forms.js';

export const REDACTED = '[REDACTED]';

/** Values shorter than this are not redacted verbatim: replacing "1" or "yes" everywhere would wreck every log. */
export const MIN_SECRET_LENGTH = 4;

const TOKEN_PATTERNS: readonly RegExp[] = [
  // GitHub: classic PAT, OAuth, user-to-server, server-to-server (Actions, Apps), refresh tokens.
  // No `\b` after it: `ghp_…_` (a word character that is not part of the token) passed whole.
  /\bgh[pousr]_[A-Za-z0-9]{16,}/g,
  // GitHub fine-grained PAT.
  /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g,
  // Anthropic API keys and OAuth tokens (sk-ant-api03-…, sk-ant-oat01-…).
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  // A PEM private key (a GitHub App's), its lines broken or `\n`-escaped, whole or cut short. By
  // shape: learnt as values, the lines of a key made the redactor's patterns seconds slow.
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:(?:\\n|\r?\n)[ \t]{0,16}[A-Za-z0-9+/=]{1,100}){0,200}(?:(?:\\n|\r?\n)[ \t]{0,16}-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?/g,
];

// Credentials that follow a scheme in an HTTP header or a URL, whatever their shape. Every repeat is
// bounded: a scheme of any length started a scan to the end of the text at every word boundary of
// `a-a-a-…` (quadratic: 250K characters took 33 s on the harness's one event loop; red team, round 2).
const HEADER_PATTERN =
  /\b(authorization|proxy-authorization)(["']?\s*[:=]\s*["']?)(bearer|token|basic)\s+[^\s"',]+/gi;
const API_KEY_HEADER_PATTERN = /\b(x-api-key)(["']?\s*[:=]\s*["']?)[^\s"',]+/gi;
const URL_USERINFO_PATTERN = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)([^/\s:@]{1,256}):([^/\s@]{1,1024})@/gi;
// A token used as the whole user-info: https://<token>@github.com/acme/widgets.git
const URL_TOKEN_USER_PATTERN = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[A-Za-z0-9_-]{20,1024}@/gi;
// Credentials in a query string: ?key=…, &access_token=…, &client_secret=…, &sig=…
const QUERY_SECRET_PATTERN =
  /([?&][a-z_-]{0,64}(?:key|token|secret|password|passwd|sig|signature)[a-z_-]{0,64}=)[^&\s#"']+/gi;

/**
 * The shapes looked for again in the rendered view: tokens, and what a URL nested in another one's
 * query carries (`?next=https%3A%2F%2Fuser%3Apass%40…`, `%3Fapi_key%3D…`).
 */
const DECODED_PATTERNS: readonly RegExp[] = [
  ...TOKEN_PATTERNS,
  URL_USERINFO_PATTERN,
  URL_TOKEN_USER_PATTERN,
  QUERY_SECRET_PATTERN,
];

/**
 * `{ markdown: true }` for a text GitHub renders as Markdown (a PR body, a comment, a commit
 * message): a secret with emphasis or a backslash escape between its letters is found too.
 */
export type Redactor = ((text: string, options?: ViewOptions) => string) & {
  /**
   * Adds a secret met at run time (a GitHub App's installation token as it is minted, the App's key
   * as it is read) to what this redactor removes from then on. Absent on plain functions.
   */
  learn?(secret: string): void;
};

/** Teaches `redact` a secret when it can learn (createRedactor's can). */
export function learnSecret(redact: Redactor, secret: string): void {
  redact.learn?.(secret);
}

/**
 * Builds a redactor that also removes the given secret values (empty and very short values are
 * ignored) in every form secret-forms.ts knows: literal, JSON-escaped, base64 and base64url at any
 * alignment, hex, URL-encoded, reversed, and split across lines; and each of those forms, and every
 * token shape, again in the text as GitHub renders it (rendered-view.ts): any of its characters
 * percent-encoded (`%7A%7a-%257A…`) or a character reference (`&#122;&#x7a&lowbar;`), invisible
 * characters between them (U+200B, soft hyphen), full-width forms.
 */
export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const forms: SecretForm[] = [];
  const known = new Set<string>();
  const add = (secret: string | undefined): boolean => {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH || known.has(secret)) return false;
    known.add(secret);
    forms.push(...secretForms(secret));
    return true;
  };
  for (const secret of secrets) add(secret);
  let literalPattern: RegExp | undefined;
  let splitPattern: RegExp | undefined;
  const compile = () => {
    literalPattern = secretsPattern(forms, { split: false });
    // Only texts with a line break need the slower pattern that allows one inside a secret.
    splitPattern = secretsPattern(
      forms.filter((form) => form.text.length >= MIN_DERIVED_LENGTH),
      { split: true },
    );
  };
  compile();

  const redactor = (text: string, options?: ViewOptions): string => {
    let out = literalPattern ? text.replace(literalPattern, REDACTED) : text;
    if (splitPattern && out.includes('\n')) out = out.replace(splitPattern, REDACTED);
    for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
    out = out.replace(
      HEADER_PATTERN,
      (_m, name: string, sep: string, scheme: string) => `${name}${sep}${scheme} ${REDACTED}`,
    );
    out = out.replace(API_KEY_HEADER_PATTERN, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`);
    out = out.replace(
      URL_USERINFO_PATTERN,
      (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`,
    );
    out = out.replace(URL_TOKEN_USER_PATTERN, (_m, scheme: string) => `${scheme}${REDACTED}@`);
    out = out.replace(QUERY_SECRET_PATTERN, (_m, name: string) => `${name}${REDACTED}`);
    // Last, and only for a text that renders otherwise than it is written (a `%XX`, a character
    // reference, an invisible or a full-width character left in it): every pattern again on the
    // rendered view. A span that renders as a secret goes whole (what the literal passes matched is
    // already gone).
    // In Markdown, two readings (rendered-view.ts markdownViews): `_` and link destinations kept,
    // and dropped where they may render as nothing.
    const views = options?.markdown ? markdownViews(out) : [renderedView(out, options)];
    if (views.every((view) => view === undefined)) return out;
    const split = views.some((view) => view?.text.includes('\n')) ? splitPattern : undefined;
    return replaceSpans(
      out,
      renderedMatches(out, views, [literalPattern, split, ...DECODED_PATTERNS]),
      REDACTED,
    );
  };
  return Object.assign(redactor, {
    learn: (secret: string) => {
      if (add(secret)) compile();
    },
  });
}

/** Pattern-only redaction, for places that have no configured secrets at hand. */
const patternsOnly = createRedactor();
/** Shared by the whole process, so it learns nothing. */
export const redact: Redactor = (text, options) => patternsOnly(text, options);

/** `text` with each span (in order, not overlapping) replaced by `replacement`. */
function replaceSpans(text: string, spans: ReadonlyArray<[number, number]>, replacement: string): string {
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const [first, last] of spans) {
    parts.push(text.slice(at, first), replacement);
    at = last;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
