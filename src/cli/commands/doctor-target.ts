import type { LoadedConfig } from '../../config/load-config.js';
import { UsageError } from '../../core/errors.js';
import { createRedactor } from '../../core/redact.js';
import {
  describeRepo,
  type GitHubTarget,
  resolveGitHubTarget,
  targetConfig,
  targetEnv,
} from '../../run/github-target.js';
import { type Env, secretsFromEnv } from '../../run/secrets.js';
import type { Check } from './doctor-report.js';

/**
 * The doctor's repository and token lines, found as `run` finds them (run/github-target.ts): the
 * origin of the checkout, GH_REPO, `gh auth token`. What doctor then asks of GitHub uses the same.
 */

/** What kind of GitHub token this is, from its documented prefix; never its value. */
export function describeGithubToken(token: string): string {
  if (token.startsWith('ghp_')) return 'classic personal access token';
  if (token.startsWith('github_pat_')) return 'fine-grained personal access token';
  if (token.startsWith('ghs_')) return 'GitHub App installation or Actions token';
  if (token.startsWith('gho_')) return 'OAuth token';
  if (token.startsWith('ghu_')) return 'GitHub App user token';
  return 'token of an unrecognised format';
}

function repoCheck(target: GitHubTarget): Check {
  const repo = describeRepo(target);
  return repo
    ? { name: 'repository', status: 'ok', detail: repo }
    : {
        name: 'repository',
        status: 'warn',
        detail: 'no repository set, and the checkout has no origin on GitHub',
        fix: 'pass --repo owner/name (or -R), set `repo:` in issueloop.config.yaml, GH_REPO or ISSUELOOP_REPO',
      };
}

function tokenCheck(target: GitHubTarget, projectConfigured: boolean): Check {
  const name = 'github token';
  const { token, tokenSource } = target;
  if (!token || !tokenSource) {
    return {
      name,
      status: 'warn',
      detail: 'no GitHub token: neither GH_TOKEN nor GITHUB_TOKEN is set, and `gh auth token` gave none',
      fix: 'export GH_TOKEN=<token>, or log in with `gh auth login` (a classic token needs the `repo` scope, plus `project` for a Projects v2 board)',
    };
  }
  const kind = describeGithubToken(token);
  const detail =
    tokenSource === 'gh auth token' ? `from \`gh auth token\` (${kind})` : `${tokenSource} is set (${kind})`;
  const [conflict] = target.warnings;
  if (projectConfigured && token.startsWith('ghs_')) {
    return {
      name,
      status: 'warn',
      detail,
      fix: 'Projects v2 needs a classic token with the `project` scope or a GitHub App with Projects permission; the Actions GITHUB_TOKEN cannot access Projects v2',
    };
  }
  if (conflict) return { name, status: 'warn', detail, fix: conflict };
  return { name, status: 'ok', detail };
}

export interface TargetChecks {
  checks: Check[];
  /** The environment with the token found (gh's under GH_TOKEN) and the configuration with the repository. */
  loaded: LoadedConfig;
  env: Env;
}

/** The repository and token lines; a token whose text is broken fails like bad configuration (exit 2). */
export async function targetChecks(
  input: { env: Env; cwd: string; gh?: boolean },
  loaded: LoadedConfig,
): Promise<TargetChecks> {
  const redact = createRedactor(secretsFromEnv(input.env, loaded.config.redact_env));
  let target: GitHubTarget;
  try {
    target = await resolveGitHubTarget({
      env: input.env,
      config: loaded.config,
      ...(loaded.repoSource ? { repoSource: loaded.repoSource } : {}),
      cwd: input.cwd,
      redact,
      gh: input.gh === true,
    });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const { message } = err;
    const [detail, fix] = [message.split(';')[0] ?? message, message.split('; ').slice(1).join('; ')];
    const repo = await resolveGitHubTarget({
      env: input.env,
      config: loaded.config,
      ...(loaded.repoSource ? { repoSource: loaded.repoSource } : {}),
      cwd: input.cwd,
      redact,
      token: false,
    });
    return {
      checks: [repoCheck(repo), { name: 'github token', status: 'fail', detail, fix, config: true }],
      loaded: { ...loaded, config: targetConfig(loaded.config, repo) },
      env: input.env,
    };
  }
  return {
    checks: [repoCheck(target), tokenCheck(target, loaded.config.project !== undefined)],
    loaded: { ...loaded, config: targetConfig(loaded.config, target) },
    env: targetEnv(input.env, target),
  };
}
