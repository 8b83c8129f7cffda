import { UsageError } from '../core/errors.js';
import type { Env } from './secrets.js';

/**
 * The variables a GitHub token is read from, in gh's order: GH_TOKEN before GITHUB_TOKEN. A user of
 * gh sets GH_TOKEN for the command line on purpose, while GITHUB_TOKEN is often left in a shell by
 * other tools; taking gh's order means issueloop acts as the account `gh` acts as.
 */
export const TOKEN_VARIABLES = ['GH_TOKEN', 'GITHUB_TOKEN'] as const;
export type TokenVariable = (typeof TOKEN_VARIABLES)[number];

/** Where a token was found: a variable, or `gh auth token` (the CLI, when no variable holds one). */
export type TokenOrigin = TokenVariable | 'gh auth token';

/** The names as a message says them: "GH_TOKEN or GITHUB_TOKEN". */
export const TOKEN_NAMES_TEXT = 'GH_TOKEN or GITHUB_TOKEN';

/** The token a variable holds, by gh's order; unchecked (see `checkedToken`). */
export function envToken(env: Env): { name: TokenVariable; token: string } | undefined {
  for (const name of TOKEN_VARIABLES) {
    const token = env[name];
    if (token) return { name, token };
  }
  return undefined;
}

/** Both variables set to different tokens: which one is used, said once by the command. */
export function tokenConflict(env: Env): string | undefined {
  const { GH_TOKEN: gh, GITHUB_TOKEN: github } = env;
  if (!gh || !github || gh === github) return undefined;
  return 'GH_TOKEN and GITHUB_TOKEN are both set, to different tokens: using GH_TOKEN (gh takes it first); unset the one you do not mean';
}

/**
 * What is wrong with a token's text, never quoting it. Refused rather than trimmed: a secret that
 * gained a newline or a space on its way (a pasted secret, `echo` into a file) is a setup to fix
 * where it is made, and other tools reading the same variable would fail on it too.
 */
export function tokenTextProblem(token: string): string | undefined {
  if (/[\r\n]$/.test(token)) return 'contains a newline (at its end)';
  if (/[\r\n]/.test(token)) return 'contains a newline';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(token)) return 'contains a control character';
  if (/^\s|\s$/.test(token)) return 'starts or ends with whitespace';
  if (/\s/.test(token)) return 'contains whitespace';
  return undefined;
}

/** Where a token may come from, the board's own included. */
export type TokenPlace = TokenOrigin | 'ISSUELOOP_PROJECTS_TOKEN';

/** How to repair the token where it came from. */
function textFix(origin: TokenPlace): string {
  if (origin === 'gh auth token') return 'log in again with `gh auth login`, or export GH_TOKEN';
  return `remove it where the variable is set, e.g. export ${origin}="$(printf %s "$${origin}" | tr -d '[:space:][:cntrl:]')"`;
}

/** The token, or a usage error (exit 2) that names where it came from, what is wrong and the fix. */
export function checkedToken(origin: TokenPlace, token: string): string {
  const problem = tokenTextProblem(token);
  if (problem === undefined) return token;
  const where = origin === 'gh auth token' ? 'the token `gh auth token` printed' : origin;
  throw new UsageError(`${where} ${problem}: a GitHub token is one line without spaces; ${textFix(origin)}`);
}

/**
 * What is wrong with a credential variable's text (the Anthropic key's, say), as one message that
 * names the variable and the fix; undefined when it is one line without spaces.
 */
export function variableTextProblem(name: string, value: string): string | undefined {
  const problem = tokenTextProblem(value);
  if (problem === undefined) return undefined;
  return `${name} ${problem}: a key is one line without spaces; remove it where the variable is set, e.g. export ${name}="$(printf %s "$${name}" | tr -d '[:space:][:cntrl:]')"`;
}
