import { APP_KEY_ENV } from '../../config/github-schema.js';
import type { LoadedConfig } from '../../config/load-config.js';
import { UsageError } from '../../core/errors.js';
import { createRedactor } from '../../core/redact.js';
import { appConfigured, appCredentials } from '../../run/app-token.js';
import { envToken } from '../../run/env-token.js';
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
 * origin of the checkout, GH_REPO, `gh auth token`, or a GitHub App. What doctor then asks of
 * GitHub uses the same.
 */

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

const NO_TOKEN_FIX =
  'export GH_TOKEN=<token>, or log in with `gh auth login` (a classic token needs the `repo` scope, plus `project` for a Projects v2 board), or use a GitHub App (ISSUELOOP_APP_ID and ISSUELOOP_APP_PRIVATE_KEY)';

/** Where the credential comes from; what kind it is, GitHub tells the `token kind` line. */
function tokenCheck(target: GitHubTarget): Check {
  const name = 'github token';
  const { token, tokenSource } = target;
  if (!token || !tokenSource) {
    return {
      name,
      status: 'warn',
      detail: 'no GitHub token: neither GH_TOKEN nor GITHUB_TOKEN is set, and `gh auth token` gave none',
      fix: NO_TOKEN_FIX,
    };
  }
  const detail = tokenSource === 'gh auth token' ? 'from `gh auth token`' : `${tokenSource} is set`;
  const [conflict] = target.warnings;
  if (conflict) return { name, status: 'warn', detail, fix: conflict };
  return { name, status: 'ok', detail };
}

/** `detail: fix` of a usage error, as a check shows them. */
function splitMessage(message: string, at: string): { detail: string; fix: string } {
  const cut = message.lastIndexOf(at);
  if (cut < 0) return { detail: message, fix: '' };
  return { detail: message.slice(0, cut), fix: message.slice(cut + at.length) };
}

/** With a GitHub App configured: its id, and where its key comes from; the key itself is checked to be one. */
function appTokenCheck(env: Env, cwd: string, config: LoadedConfig['config']): Check {
  const name = 'github token';
  try {
    const app = appCredentials({ env, config, cwd });
    const installation = app?.installationId === undefined ? '' : `, installation ${app.installationId}`;
    const unused = envToken(env);
    const aside = unused ? `; ${unused.name} is set too, unused (the App's tokens win)` : '';
    return {
      name,
      status: 'ok',
      detail: `GitHub App id ${app?.id}${installation}, its private key from ${APP_KEY_ENV}${aside}`,
    };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { name, status: 'fail', ...splitMessage(err.message, ': '), config: true };
  }
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
    checks: [
      repoCheck(target),
      appConfigured(input.env, loaded.config)
        ? appTokenCheck(input.env, input.cwd, loaded.config)
        : tokenCheck(target),
    ],
    loaded: { ...loaded, config: targetConfig(loaded.config, target) },
    env: targetEnv(input.env, target),
  };
}
