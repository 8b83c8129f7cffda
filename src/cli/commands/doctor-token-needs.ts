import { protectedGlobs } from '../../config/protected-paths.js';
import type { Config } from '../../config/schema.js';
import { compileGlob } from '../../core/path-glob.js';
import type { Check } from './doctor-report.js';
import { ACTIONS_BOT, type TokenKind } from './doctor-token-kind.js';

/**
 * What issueloop needs of the token, judged from its kind: write access to contents, issues and pull
 * requests; CI on the pull requests it opens; the workflow permission where `protected_paths` lets
 * the agent change workflows; access to the board. One check each, with the fix.
 */

export interface RepoAccess {
  slug: string;
  private: boolean;
  /** `permissions.push` of `GET /repos/{owner}/{repo}`: the user's role (always false for an installation). */
  push?: boolean;
}

/**
 * An installation token's permissions, as `POST /app/installations/{id}/access_tokens` answered them
 * (`contents: 'write'`, …): known when issueloop minted the token itself, else undefined.
 */
export type TokenPermissions = Readonly<Record<string, string>>;

const NEEDED = ['contents', 'issues', 'pull_requests'] as const;
const APP_FIX =
  'a GitHub App (app_id and app_private_key in the action; ISSUELOOP_APP_ID and ISSUELOOP_APP_PRIVATE_KEY for the CLI) or a personal access token';

/** The App settings' names of the permissions issueloop needs. */
const PERMISSION_NAMES: Readonly<Record<string, string>> = {
  contents: 'Contents',
  issues: 'Issues',
  pull_requests: 'Pull requests',
  workflows: 'Workflows',
};
/** A changed App permission takes effect only once the installation accepts it. */
const ACCEPT =
  "then accept the new permissions on the installation (GitHub asks its owner to review them on the installation's settings page)";

/** `give the App Issues: Read and write in its settings (Repository permissions), then accept …`. */
function appPermissionFix(names: readonly string[]): string {
  const what = names.map((n) => PERMISSION_NAMES[n] ?? n).join(', ');
  return `give the App ${what}: Read and write in its settings (Permissions → Repository permissions), ${ACCEPT}`;
}

const isInstallation = (t: TokenKind) =>
  t.kind === 'actions' || t.kind === 'app' || t.kind === 'installation';
const isGh = (t: TokenKind) => t.kind === 'gh-oauth';

function addScope(token: TokenKind, scope: string): string {
  return isGh(token)
    ? `\`gh auth refresh -s ${scope}\``
    : `add the \`${scope}\` scope at https://github.com/settings/tokens`;
}

function roleRefused(repo: RepoAccess): Check {
  return {
    name: 'write access',
    status: 'fail',
    detail: `${repo.slug} is readable, but the token's account has no write access to it`,
    fix: `ask an admin of ${repo.slug} for the write role, or use a token of an account that has it`,
  };
}

function installationWrite(token: TokenKind, repo: RepoAccess, permissions?: TokenPermissions): Check {
  const name = 'write access';
  if (permissions) {
    const missing = NEEDED.filter((p) => permissions[p] !== 'write');
    if (missing.length === 0) {
      return { name, status: 'ok', detail: `contents, issues and pull requests: write on ${repo.slug}` };
    }
    return {
      name,
      status: 'fail',
      detail: `the App's token lacks write on ${missing.join(', ')} (${missing.map((p) => `${p}: ${permissions[p] ?? 'none'}`).join(', ')})`,
      fix: appPermissionFix(missing),
    };
  }
  const unreported = 'GitHub does not tell an installation token its own permissions';
  if (token.kind === 'actions') {
    return {
      name,
      status: 'warn',
      detail: `${unreported}: the Actions token has what the workflow grants`,
      fix: 'grant it in the workflow: `permissions: { contents: write, issues: write, pull-requests: write }`',
    };
  }
  return {
    name,
    status: 'warn',
    detail: `${unreported}; issueloop needs contents, issues and pull requests: write on ${repo.slug}`,
    fix: 'give the App Contents, Issues and Pull requests: Read and write in its settings',
  };
}

/** Write access to contents, issues and pull requests. */
export function writeAccessCheck(token: TokenKind, repo: RepoAccess, permissions?: TokenPermissions): Check {
  const name = 'write access';
  if (isInstallation(token)) return installationWrite(token, repo, permissions);
  if (token.scopes) {
    const enough = token.scopes.includes('repo') || (!repo.private && token.scopes.includes('public_repo'));
    if (!enough) {
      const scope = repo.private ? '`repo`' : '`repo` (or `public_repo`)';
      return {
        name,
        status: 'fail',
        detail: `the token lacks the ${scope} scope, without which it cannot push, open pull requests or comment`,
        fix: addScope(token, 'repo'),
      };
    }
    if (repo.push === false) return roleRefused(repo);
    return { name, status: 'ok', detail: `the \`repo\` scope and write access to ${repo.slug}` };
  }
  if (repo.push === false) return roleRefused(repo);
  return {
    name,
    status: 'ok',
    detail: `the account can write to ${repo.slug}; GitHub does not report a fine-grained token's own permissions: it needs Contents, Issues and Pull requests: Read and write`,
  };
}

/** Whether GitHub will start CI for what the token pushes and opens. */
export function ciCheck(token: TokenKind): Check {
  const name = 'ci on its PRs';
  const consequence = 'its pull requests get no CI, so CI follow-ups and pr.ready_when_green never fire';
  if (token.kind === 'actions') {
    return {
      name,
      status: 'warn',
      detail: `GitHub starts no workflow run for events the Actions token (${ACTIONS_BOT}) causes: ${consequence}`,
      fix: `use ${APP_FIX}`,
    };
  }
  if (token.kind === 'installation') {
    return {
      name,
      status: 'warn',
      detail: `GitHub did not say which App this installation token is: if it is the Actions token, ${consequence}`,
      fix: `use ${APP_FIX}`,
    };
  }
  if (token.kind === 'app')
    return { name, status: 'ok', detail: 'yes (events by a GitHub App start workflows)' };
  return { name, status: 'ok', detail: 'pushes and pull requests made with this token start workflow runs' };
}

const WORKFLOW_FILE = '.github/workflows/ci.yml';

export function workflowsProtected(config: Config): boolean {
  return protectedGlobs(config.protected_paths).some((glob) => compileGlob(glob).covers(WORKFLOW_FILE));
}

/** True, false, or undefined where GitHub does not tell. */
function hasWorkflowPermission(token: TokenKind, permissions?: TokenPermissions): boolean | undefined {
  if (token.scopes) return token.scopes.includes('workflow');
  if (token.kind === 'actions') return false;
  if (permissions) return permissions.workflows === 'write';
  return undefined;
}

/** The `workflow` scope or Workflows permission, needed only when the agent may change workflows. */
export function workflowCheck(token: TokenKind, config: Config, permissions?: TokenPermissions): Check {
  const name = 'workflows';
  const has = hasWorkflowPermission(token, permissions);
  const what = token.scopes ? '`workflow` scope' : 'Workflows permission';
  if (workflowsProtected(config)) {
    const extra =
      has === true
        ? `; the token's ${what} gives more than necessary`
        : has === undefined
          ? '; a token with the Workflows permission gives more than necessary'
          : '';
    return {
      name,
      status: 'ok',
      detail: `protected_paths covers .github/workflows/: no workflow permission is needed${extra}`,
    };
  }
  const keep = "or keep '.github/workflows/**' in protected_paths";
  if (has === true) {
    return {
      name,
      status: 'ok',
      detail: `the agent may change .github/workflows/, and the token has the ${what}`,
    };
  }
  const lead = 'protected_paths lets the agent change .github/workflows/';
  if (token.kind === 'actions') {
    return {
      name,
      status: 'warn',
      detail: `${lead}, but the Actions token cannot have the workflows permission: GitHub refuses a push that changes a workflow`,
      fix: `use a GitHub App with the Workflows permission or a PAT with \`workflow\`, ${keep}`,
    };
  }
  if (has === false) {
    return {
      name,
      status: 'warn',
      detail: `${lead}, but the token lacks the ${what}: GitHub refuses a push that changes a workflow`,
      fix: token.scopes
        ? `${addScope(token, 'workflow')}, ${keep}`
        : `${appPermissionFix(['workflows'])}; ${keep}`,
    };
  }
  return {
    name,
    status: 'warn',
    detail: `${lead}: pushing such a change needs the Workflows permission, which GitHub does not report for this token`,
    fix: `give the token Workflows: Read and write, ${keep}`,
  };
}

export type OwnerType = 'User' | 'Organization';

function appProjectsFix(owner: string): string {
  return `give the App the organisation permission Projects: Read and write in its settings (Permissions → Organization permissions → Projects), ${ACCEPT} on ${owner}`;
}

/**
 * An organisation's board judged from what GitHub granted a minted App token: without
 * `organization_projects: write` the board cannot be read or moved (a failed check with the fix);
 * undefined when the token has it, or the board is not an organisation's.
 */
export function appBoardCheck(
  permissions: TokenPermissions,
  owner: string,
  ownerType: OwnerType | undefined,
): Check | undefined {
  if (ownerType !== 'Organization') return undefined;
  const granted = permissions.organization_projects;
  if (granted === 'write') return undefined;
  return {
    name: 'project',
    status: 'fail',
    detail: `the App's token lacks the organisation permission Projects: write (organization_projects: ${granted ?? 'none'}), which ${owner}'s board needs`,
    fix: appProjectsFix(owner),
  };
}

/** Which token reaches the board: user-owned projects only a classic PAT with `project`. */
export function boardFix(
  token: TokenKind | undefined,
  owner: string,
  ownerType: OwnerType | undefined,
): string {
  const separate = 'set ISSUELOOP_PROJECTS_TOKEN for the board alone';
  if (ownerType === 'User') {
    const lead = `${owner}'s project is user-owned: only a classic personal access token with the \`project\` scope reaches it (not a fine-grained token, an App or the Actions token)`;
    if (token?.scopes) return `${lead}; ${addScope(token, 'project')}`;
    return `${lead}; ${separate} to one, or move the board to an organisation`;
  }
  if (ownerType === 'Organization' && token) {
    if (token.kind === 'actions') {
      return `the Actions token cannot reach Projects v2: use a GitHub App with the organisation permission Projects: Read and write, or ${separate}`;
    }
    if (token.kind === 'app' || token.kind === 'installation') return appProjectsFix(owner);
    if (token.kind === 'fine-grained') {
      return `give the token (resource owner ${owner}) the organisation permission Projects: Read and write`;
    }
    if (token.scopes) return addScope(token, 'project');
  }
  return 'check project.owner and project.number or project.title, and that the token can reach the board';
}
