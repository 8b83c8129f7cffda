import type { GitHubClient } from '../../github/client.js';
import { VIEWER_LOGIN } from '../../github/review-threads.js';
import type { Check } from './doctor-report.js';

/**
 * Which kind of GitHub token this is, told from GitHub's answers: `GET /user` (refused to an
 * installation token with "Resource not accessible by integration"), the headers on every answer
 * (`x-oauth-scopes` for classic and OAuth tokens, `x-oauth-client-id` for an OAuth app's,
 * `github-authentication-token-expiration` for a PAT that expires) and GraphQL's `viewer` (an
 * installation's bot). GitHub says not to assume token formats, so the prefix is only a hint for
 * what the answers leave open, and the line then says "probably".
 */
export type TokenKindName =
  | 'actions'
  | 'app'
  | 'installation'
  | 'classic'
  | 'fine-grained'
  | 'gh-oauth'
  | 'oauth'
  | 'app-user'
  | 'unknown';

/** What GitHub answered about the token; never the token itself. */
export interface TokenEvidence {
  /** Status of `GET /user`, and GitHub's message when it refused. */
  userStatus: number;
  userMessage?: string;
  /** The user's login from `GET /user`. */
  login?: string;
  /** `x-oauth-scopes`, when GitHub sent it (classic and OAuth tokens; maybe empty). */
  scopes?: string[];
  clientId?: string;
  expiration?: string;
  /** GraphQL `viewer.login`: an installation token's bot. */
  viewer?: string;
  /** The documented prefix (`ghp_`, `github_pat_`, `ghs_`, `gho_`, `ghu_`), a hint only. */
  prefix?: string;
}

export interface TokenKind {
  kind: TokenKindName;
  /** Told from the prefix where the answers did not say. */
  probable: boolean;
  /** The user or bot the token acts as. */
  login?: string;
  /** Classic and OAuth tokens only. */
  scopes?: string[];
  expiration?: string;
  /** An App installation token issueloop minted itself (the App route), rather than one handed in. */
  minted?: boolean;
}

/** The OAuth app of GitHub CLI: `gh auth login` makes its tokens (GitHub's own docs show it in `x-oauth-client-id`). */
export const GH_CLI_CLIENT_ID = '178c6fc778ccc68e1d6a';
export const ACTIONS_BOT = 'github-actions[bot]';
const INTEGRATION = /not accessible by integration/i;
const PREFIXES = ['github_pat_', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'];

export function tokenPrefix(token: string): string | undefined {
  return PREFIXES.find((p) => token.startsWith(p));
}

function userKind(evidence: TokenEvidence): Pick<TokenKind, 'kind' | 'probable'> {
  if (evidence.scopes !== undefined) {
    if (evidence.clientId === GH_CLI_CLIENT_ID) return { kind: 'gh-oauth', probable: false };
    if (evidence.clientId !== undefined) return { kind: 'oauth', probable: false };
    if (evidence.prefix === 'gho_') return { kind: 'gh-oauth', probable: true };
    return { kind: 'classic', probable: false };
  }
  if (evidence.prefix === 'ghu_') return { kind: 'app-user', probable: true };
  return { kind: 'fine-grained', probable: false };
}

export function classifyToken(evidence: TokenEvidence): TokenKind {
  const extra = {
    ...(evidence.scopes !== undefined ? { scopes: evidence.scopes } : {}),
    ...(evidence.expiration !== undefined ? { expiration: evidence.expiration } : {}),
  };
  if (evidence.userStatus === 403 && INTEGRATION.test(evidence.userMessage ?? '')) {
    const bot = evidence.viewer;
    if (bot === ACTIONS_BOT) return { kind: 'actions', probable: false, login: bot, ...extra };
    if (bot?.endsWith('[bot]')) return { kind: 'app', probable: false, login: bot, ...extra };
    return { kind: 'installation', probable: false, ...extra };
  }
  if (evidence.userStatus !== 200) return { kind: 'unknown', probable: false, ...extra };
  return { ...userKind(evidence), ...(evidence.login ? { login: evidence.login } : {}), ...extra };
}

const scopeText = (scopes: readonly string[]) => (scopes.length > 0 ? scopes.join(', ') : 'none');

/** The `token` line: what kind, as whom, with which scopes, until when. */
export function describeTokenKind(token: TokenKind): string {
  const of = token.login ? ` of ${token.login}` : '';
  const scopes = token.scopes ? ` (scopes: ${scopeText(token.scopes)})` : '';
  const expires = token.expiration ? `; expires ${token.expiration}` : '';
  const text: Record<TokenKindName, string> = {
    actions: `the GitHub Actions token (${ACTIONS_BOT}, an installation of the github-actions app)`,
    app: token.minted
      ? `GitHub App installation (minted by issueloop), acting as ${token.login}`
      : `a GitHub App installation token, acting as ${token.login}`,
    installation:
      'an installation token (GET /user: Resource not accessible by integration); GitHub did not say which App',
    classic: `a classic personal access token${of}${scopes}`,
    'fine-grained': `a fine-grained personal access token${of} (no x-oauth-scopes; GET /user answers)`,
    'gh-oauth': token.probable
      ? `probably an OAuth token from \`gh auth login\`${of} (the gho_ prefix; GitHub sent no x-oauth-client-id)${scopes}`
      : `an OAuth token of GitHub CLI (\`gh auth login\`)${of}${scopes}`,
    oauth: `an OAuth app's token${of}${scopes}`,
    'app-user': `probably a GitHub App user token${of} (the ghu_ prefix; no x-oauth-scopes)`,
    unknown: 'a token GitHub did not describe',
  };
  return `${text[token.kind]}${expires}`;
}

interface Refusal {
  status: number;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

function isRefusal(err: unknown): err is Refusal {
  return typeof err === 'object' && err !== null && typeof (err as Refusal).status === 'number';
}

function fromHeaders(headers: Record<string, string | number | undefined>): Partial<TokenEvidence> {
  const header = (name: string) => {
    const value = headers[name];
    return value === undefined ? undefined : String(value);
  };
  const scopes = header('x-oauth-scopes');
  const clientId = header('x-oauth-client-id');
  const expiration = header('github-authentication-token-expiration');
  return {
    ...(scopes !== undefined
      ? {
          scopes: scopes
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        }
      : {}),
    ...(clientId ? { clientId } : {}),
    ...(expiration ? { expiration } : {}),
  };
}

async function viewerLogin(gh: GitHubClient): Promise<string | undefined> {
  try {
    const data = await gh.graphql<{ viewer: { login: string } | null }>(VIEWER_LOGIN);
    return data.viewer?.login;
  } catch {
    return undefined;
  }
}

/** Asks GitHub what it makes of the token: `GET /user`, then for an installation its bot. */
export async function probeTokenKind(gh: GitHubClient, prefix: string | undefined): Promise<TokenKind> {
  const hint = prefix ? { prefix } : {};
  let evidence: TokenEvidence;
  try {
    const answer = await gh.rest.request('GET /user');
    evidence = {
      userStatus: answer.status,
      login: answer.data.login,
      ...fromHeaders(answer.headers),
      ...hint,
    };
  } catch (err) {
    if (!isRefusal(err)) throw err;
    const data = err.response?.data as { message?: unknown } | undefined;
    evidence = {
      userStatus: err.status,
      ...(typeof data?.message === 'string' ? { userMessage: data.message } : {}),
      ...fromHeaders(err.response?.headers ?? {}),
      ...hint,
    };
  }
  if (evidence.userStatus === 403) {
    const viewer = await viewerLogin(gh);
    if (viewer) evidence.viewer = viewer;
  }
  return classifyToken(evidence);
}

export function tokenKindCheck(token: TokenKind): Check {
  const detail = describeTokenKind(token);
  if (token.kind === 'unknown') {
    return {
      name: 'token kind',
      status: 'warn',
      detail,
      fix: 'use a GitHub App, a fine-grained or classic personal access token, or `gh auth token`',
    };
  }
  return { name: 'token kind', status: 'ok', detail };
}
