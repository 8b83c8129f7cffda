import { ROLE_RANK } from './records.js';
import { errorReply, ok, type Reply } from './replies.js';
import type { Route, RouteContext } from './router.js';
import { pagedReply } from './routes-issues.js';
import { repoApi } from './serialize.js';
import type { RepoRole, SeedRequiredCheck } from './types.js';

/**
 * A branch's required status checks, the two ways GitHub keeps them. Classic protection is read back
 * only with admin rights (an app without the administration permission, or a user with less, is
 * refused with 403; a branch without protection is a 404). A ruleset's rules are readable by anyone
 * who can read the repository: `GET /rules/branches/{branch}`, one ruleset of the repository here.
 */

const RULESET_ID = 1;

/** `-1` and null both say "any source", as GitHub reads them back. */
const appIdOf = (check: SeedRequiredCheck) => (check.app_id === undefined ? null : check.app_id);

function requiredStatusChecks(ctx: RouteContext): Reply {
  const { token, store } = ctx;
  if (token.kind === 'installation') return errorReply(403, 'Resource not accessible by integration');
  const role: RepoRole = store.roleOf(token.login);
  if (ROLE_RANK[role] < ROLE_RANK.admin) return errorReply(403, 'Must have admin rights to Repository.');
  const branch = ctx.params.branch ?? '';
  const checks = store.lifecycle.requiredChecks.get(branch)?.protection ?? [];
  if (checks.length === 0) return errorReply(404, 'Branch not protected');
  const url = `${repoApi(store, ctx.urls)}/branches/${encodeURIComponent(branch)}/protection/required_status_checks`;
  return ok({
    url,
    strict: store.lifecycle.strictBranches.has(branch),
    contexts: checks.map((c) => c.context),
    contexts_url: `${url}/contexts`,
    checks: checks.map((c) => ({ context: c.context, app_id: appIdOf(c) })),
  });
}

function branchRules(ctx: RouteContext): Reply {
  const branch = ctx.params.branch ?? '';
  const checks = ctx.store.lifecycle.requiredChecks.get(branch)?.rulesets ?? [];
  const rules =
    checks.length === 0
      ? []
      : [
          {
            type: 'required_status_checks',
            ruleset_source_type: 'Repository',
            ruleset_source: `${ctx.store.owner.login}/${ctx.store.repo.name}`,
            ruleset_id: RULESET_ID,
            parameters: {
              strict_required_status_checks_policy: false,
              required_status_checks: checks.map((c) =>
                c.app_id === undefined || c.app_id === null
                  ? { context: c.context }
                  : { context: c.context, integration_id: c.app_id },
              ),
            },
          },
        ];
  return pagedReply(ctx, rules, (rule) => rule);
}

export const protectionRoutes: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/branches/:branch/protection/required_status_checks',
    handle: requiredStatusChecks,
  },
  { method: 'GET', pattern: '/repos/:owner/:repo/rules/branches/:branch', handle: branchRules },
];
