import { APP_ENTRY } from '../config/schema.js';
import { type GitHubClient, repoPath } from './client.js';
import { getAllPages, getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf, isGitHubError } from './github-error.js';

/**
 * The checks a maintainer relies on (`pr.ci_checks`): only their failures start a follow-up. Each
 * entry is `app:<slug>` (every check run of that GitHub App), `required` (the base branch's required
 * status checks, from branch protection and rulesets, where the token can read them), or a check
 * run's name or a commit status's context, exactly. Anything else on the commit is ignored and
 * counted: a foreign app's check run or a status anyone with push access posted is text someone else
 * wrote, and would otherwise put work (and words) in front of the agent.
 */

/** A required status check: its name, and the app that must provide it (null: any source). */
export interface RequiredCheck {
  context: string;
  appId: number | null;
}

/** What `pr.ci_checks` says, with `required` resolved for one base branch. */
export interface CheckPolicy {
  apps: ReadonlySet<string>;
  names: ReadonlySet<string>;
  required: readonly RequiredCheck[];
}

/** A check as the policy sees it: its raw name (before cleaning) and, for a check run, its app. */
export type CheckSource =
  | { kind: 'check_run'; name: string; app?: { slug?: string; id?: number } | null }
  | { kind: 'status'; name: string };

export function checkPolicy(
  entries: readonly string[],
  required: readonly RequiredCheck[] = [],
): CheckPolicy {
  const apps = new Set<string>();
  const names = new Set<string>();
  for (const entry of entries) {
    const app = APP_ENTRY.exec(entry);
    if (app?.[1]) apps.add(app[1].toLowerCase());
    else if (entry !== 'required') names.add(entry);
  }
  return { apps, names, required: entries.includes('required') ? required : [] };
}

/**
 * Whether a failure of this check may start a follow-up. A required check bound to an app is met
 * only by that app's check run (as GitHub's merge gate does); one bound to none, by any check run or
 * status of its name. A status has no app here (the combined status does not say who posted it).
 */
export function reliesOn(policy: CheckPolicy, check: CheckSource): boolean {
  if (policy.names.has(check.name)) return true;
  const slug = check.kind === 'check_run' ? check.app?.slug?.toLowerCase() : undefined;
  if (slug !== undefined && policy.apps.has(slug)) return true;
  const appId = check.kind === 'check_run' ? check.app?.id : undefined;
  return policy.required.some(
    (r) => r.context === check.name && (r.appId === null || (appId !== undefined && r.appId === appId)),
  );
}

/** The required checks of a branch, and which of their two sources the token could not read. */
export interface RequiredChecks {
  checks: RequiredCheck[];
  unreadable: string[];
}

const anyApp = (id: number | null | undefined) => (id === undefined || id === null || id < 0 ? null : id);

interface RawProtection {
  contexts?: string[];
  checks?: Array<{ context: string; app_id?: number | null }>;
}

interface RawRule {
  type: string;
  parameters?: { required_status_checks?: Array<{ context: string; integration_id?: number | null }> };
}

/**
 * Branch protection's required status checks (reading them needs admin rights: a 403 or 404, also
 * GitHub's answer for a branch without protection, means none are known from it; after either it
 * is not asked again) and the rules of every active ruleset on the branch (metadata read suffices).
 * Conditional requests: 304 while nothing changed. A rate limit or a server error is thrown, not
 * taken for "none".
 */
export async function readRequiredChecks(
  gh: GitHubClient,
  cache: EtagCache,
  branch: string,
  /**
   * Branches whose protection answered 403 (no admin rights) or 404 (none): not asked again, since
   * an answer without an ETag is charged at every sweep. Rulesets are read every time.
   */
  unreadableProtection: Set<string> = new Set(),
): Promise<RequiredChecks> {
  const repo = repoPath(gh.repo);
  const ref = encodeURIComponent(branch);
  const result: RequiredChecks = { checks: [], unreadable: [] };
  const unreadable = (err: unknown) => {
    const status = httpStatusOf(err);
    return (status === 403 || status === 404) && !isGitHubError(err, 'rate_limit');
  };
  if (unreadableProtection.has(branch)) result.unreadable.push('branch protection');
  else {
    try {
      const page = await getConditional(
        gh,
        cache,
        `${repo}/branches/${ref}/protection/required_status_checks`,
        (raw) => {
          const body = raw as RawProtection;
          const checks = body.checks ?? (body.contexts ?? []).map((context) => ({ context, app_id: null }));
          return checks.map((c) => ({ context: c.context, appId: anyApp(c.app_id) }));
        },
        `read the required checks of ${branch}`,
      );
      result.checks.push(...page.data);
    } catch (err) {
      if (!unreadable(err)) throw err;
      unreadableProtection.add(branch);
      result.unreadable.push('branch protection');
    }
  }
  try {
    const rules = await getAllPages(
      gh,
      cache,
      `${repo}/rules/branches/${ref}?per_page=100`,
      (raw) =>
        (raw as RawRule[])
          .filter((rule) => rule.type === 'required_status_checks')
          .flatMap((rule) => rule.parameters?.required_status_checks ?? [])
          .map((c) => ({ context: c.context, appId: anyApp(c.integration_id) })),
      `read the rules of ${branch}`,
      10,
    );
    result.checks.push(...rules.items);
  } catch (err) {
    if (!unreadable(err)) throw err;
    result.unreadable.push('rulesets');
  }
  return result;
}
