import type { LoadedConfig } from '../../config/load-config.js';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import { createRedactor } from '../../core/redact.js';
import { isAppTokenSource } from '../../github/app-identity.js';
import type { GitHubClient } from '../../github/client.js';
import { isGitHubError } from '../../github/github-error.js';
import { gql } from '../../github/gql.js';
import { appConfigured } from '../../run/app-token.js';
import { buildGitHubClient, githubToken, repoRef } from '../../run/github-deps.js';
import { type Env, secretsFromEnv } from '../../run/secrets.js';
import type { MintedApp } from './doctor-app.js';
import type { Check } from './doctor-report.js';
import { probeTokenKind, type TokenKind, tokenKindCheck, tokenPrefix } from './doctor-token-kind.js';
import {
  appBoardCheck,
  boardFix,
  ciCheck,
  type OwnerType,
  type RepoAccess,
  type TokenPermissions,
  workflowCheck,
  writeAccessCheck,
} from './doctor-token-needs.js';

/**
 * The doctor's checks that talk to GitHub: the token (via the free `GET /rate_limit`, which also
 * tells its scopes), its kind and what issueloop needs of it, the repository, the trigger label and
 * the board. Each says what to fix.
 */
const SILENT: Log = { debug() {}, info() {}, warn() {}, error() {}, child: () => SILENT };
const TIMEOUT_MS = 15_000;

function failure(name: string, err: unknown, fallbackFix: string): Check {
  if (isGitHubError(err)) {
    return { name, status: 'fail', detail: err.classified.message, fix: err.classified.hint ?? fallbackFix };
  }
  return { name, status: 'fail', detail: err instanceof Error ? err.message : String(err), fix: fallbackFix };
}

async function checkToken(gh: GitHubClient, projectConfigured: boolean): Promise<Check> {
  const name = 'github api';
  try {
    const { data } = await gh.call('check the token', () => gh.rest.rateLimit.get());
    const core = data.resources.core;
    const scopes = gh.metrics.scopes;
    const scopeText = scopes ? `; scopes: ${scopes.length > 0 ? scopes.join(', ') : '(none)'}` : '';
    const detail = `token accepted; ${core.remaining} of ${core.limit} requests left this hour${scopeText}`;
    if (scopes && projectConfigured && !scopes.some((s) => s === 'project' || s === 'read:project')) {
      return {
        name,
        status: 'warn',
        detail,
        fix: 'the token lacks the `project` scope the board needs: add it at https://github.com/settings/tokens (a `gh` token: `gh auth refresh -s project`)',
      };
    }
    if (core.remaining === 0) {
      return { name, status: 'warn', detail, fix: 'the hourly rate limit is used up; wait for the reset' };
    }
    return { name, status: 'ok', detail };
  } catch (err) {
    return failure(
      name,
      err,
      'check GITHUB_API_URL and the network; set a valid GH_TOKEN or GITHUB_TOKEN (GH_TOKEN wins)',
    );
  }
}

/** Reachability; whether the token may write is the `write access` check's (by the token's kind). */
async function checkRepository(gh: GitHubClient): Promise<{ check: Check; access?: RepoAccess }> {
  const name = 'repository';
  const slug = `${gh.repo.owner}/${gh.repo.name}`;
  try {
    const { data } = await gh.call(`read ${slug}`, () =>
      gh.rest.repos.get({ owner: gh.repo.owner, repo: gh.repo.name }),
    );
    const detail = `${slug} is reachable (default branch ${data.default_branch})`;
    const push = data.permissions?.push;
    const access: RepoAccess = { slug, private: data.private, ...(push !== undefined ? { push } : {}) };
    return { check: { name, status: 'ok', detail }, access };
  } catch (err) {
    return { check: failure(name, err, `check the repository slug (${slug}) and that the token can see it`) };
  }
}

async function checkLabel(gh: GitHubClient, label: string): Promise<Check> {
  const name = 'trigger label';
  try {
    await gh.call(`read label ${label}`, () =>
      gh.rest.issues.getLabel({ owner: gh.repo.owner, repo: gh.repo.name, name: label }),
    );
    return { name, status: 'ok', detail: `label "${label}" exists` };
  } catch (err) {
    if (isGitHubError(err, 'not_found')) {
      return {
        name,
        status: 'warn',
        detail: `label "${label}" does not exist, so no issue can carry it`,
        fix: `create it (gh label create "${label}") and add it to the issues issueloop should work on`,
      };
    }
    return failure(name, err, 'check the token and the repository');
  }
}

const DOCTOR_OWNER = gql`
  query DoctorOwner($owner: String!) {
    repositoryOwner(login: $owner) {
      __typename
    }
  }
`;

/** Whether the board's owner is a user or an organisation: which tokens reach it depends on that. */
async function ownerType(gh: GitHubClient, owner: string): Promise<OwnerType | undefined> {
  try {
    const data = await gh.projectsGraphql<{ repositoryOwner: { __typename: string } | null }>(DOCTOR_OWNER, {
      owner,
    });
    const type = data.repositoryOwner?.__typename;
    return type === 'User' || type === 'Organization' ? type : undefined;
  } catch {
    return undefined;
  }
}

async function checkProject(
  gh: GitHubClient,
  loaded: LoadedConfig,
  token: TokenKind | undefined,
  permissions: TokenPermissions | undefined,
): Promise<Check | undefined> {
  const project = loaded.config.project;
  if (!project) return undefined;
  const name = 'project';
  const { resolveProject, missingStatuses } = await import('../../github/board/resolve-project.js');
  const type = await ownerType(gh, project.owner);
  // A minted App token: what GitHub granted says whether it reaches an organisation's board.
  const refused = permissions && token?.kind === 'app' && appBoardCheck(permissions, project.owner, type);
  if (refused) return refused;
  const whose = type === 'User' ? 'user' : type === 'Organization' ? 'organisation' : undefined;
  try {
    const resolved = await resolveProject(gh, project);
    const missing = missingStatuses(resolved, project.statuses);
    const detail = `"${resolved.title}" (#${resolved.number}${whose ? `, ${whose} project` : ''}), ${resolved.fieldName}: ${resolved.options.map((o) => o.name).join(', ')}`;
    if (missing.length > 0) {
      return {
        name,
        status: 'warn',
        detail: `${detail}; missing: ${missing.map((m) => `${m.name} (${m.phase})`).join(', ')}`,
        fix: 'run `issueloop board init` to add the missing options, or set project.statuses to existing names',
      };
    }
    return { name, status: 'ok', detail };
  } catch (err) {
    const fix = boardFix(token, project.owner, type);
    if (isGitHubError(err)) return { name, status: 'fail', detail: err.classified.message, fix };
    return failure(name, err, fix);
  }
}

export interface GithubDoctorInput {
  env: Env;
  cwd: string;
  version: string;
  loaded: LoadedConfig;
  fetch?: typeof fetch;
  /** An App installation token's permissions, when issueloop minted it (the App route). */
  permissions?: TokenPermissions;
}

/** The token's kind and what issueloop needs of it; a failed probe is a failed check, not a crash. */
async function tokenChecks(gh: GitHubClient, token: string): Promise<{ checks: Check[]; kind?: TokenKind }> {
  try {
    const kind = await probeTokenKind(gh, tokenPrefix(token));
    return { checks: [tokenKindCheck(kind)], kind };
  } catch (err) {
    return {
      checks: [failure('token kind', err, 'check the network and GITHUB_API_URL, then run doctor again')],
    };
  }
}

/** With an App, its own line first; a failure there ends the GitHub checks (every request would fail alike). */
async function appChecks(
  gh: GitHubClient,
  config: Config,
): Promise<{ checks: Check[]; minted?: MintedApp } | undefined> {
  const source = gh.tokenSource;
  if (!isAppTokenSource(source) || !config.github.app) return undefined;
  // The installation is looked up for the repository: without one it would be looked up for '-/-'.
  if (!config.repo && config.github.app.installation_id === undefined) {
    const check: Check = {
      name: 'github app',
      status: 'fail',
      detail: `no repository to look the GitHub App ${config.github.app.id}'s installation up for`,
      fix: 'pass --repo owner/name (or -R), set `repo:` in issueloop.config.yaml or GH_REPO, or set ISSUELOOP_APP_INSTALLATION_ID',
    };
    return { checks: [check] };
  }
  const { checkApp } = await import('./doctor-app.js');
  const minted = await checkApp(gh, source, config.github.app.id);
  return { checks: [minted.check], minted };
}

export async function githubChecks(input: GithubDoctorInput): Promise<Check[]> {
  const config = input.loaded.config;
  const token = githubToken(input.env);
  if (!token && !appConfigured(input.env, config)) return [];
  const redact = createRedactor(secretsFromEnv(input.env, config.redact_env));
  const inner = input.fetch ?? globalThis.fetch;
  const gh = buildGitHubClient({
    env: input.env,
    config,
    cwd: input.cwd,
    log: SILENT,
    redact,
    version: input.version,
    fetch: (resource, init) =>
      inner(resource, { ...init, signal: init?.signal ?? AbortSignal.timeout(TIMEOUT_MS) }),
    repoFallback: repoRef(config.project ? `${config.project.owner}/-` : '-/-'),
  });
  const app = await appChecks(gh, config);
  if (app?.checks.some((c) => c.status === 'fail')) return app.checks;
  const checks: Check[] = [...(app?.checks ?? [])];
  const api = await checkToken(gh, config.project !== undefined);
  checks.push(api);
  if (api.status === 'fail') return checks;
  const { checks: kindChecks, kind } = app?.minted?.kind
    ? { checks: [tokenKindCheck(app.minted.kind)], kind: app.minted.kind }
    : await tokenChecks(gh, token ?? '');
  checks.push(...kindChecks);
  const permissions = input.permissions ?? app?.minted?.permissions;
  if (config.repo) {
    const { check, access } = await checkRepository(gh);
    checks.push(check);
    if (kind && access) checks.push(writeAccessCheck(kind, access, permissions));
    checks.push(await checkLabel(gh, config.label));
  }
  if (kind) checks.push(ciCheck(kind), workflowCheck(kind, config, permissions));
  // A separate Projects token reaches the board: the main token's kind says nothing about it.
  const boardToken = input.env.ISSUELOOP_PROJECTS_TOKEN ? undefined : kind;
  const project = await checkProject(gh, input.loaded, boardToken, boardToken && permissions);
  if (project) checks.push(project);
  return checks;
}
