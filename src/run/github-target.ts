import type { Config } from '../config/schema.js';
import type { Redactor } from '../core/redact.js';
import { appConfigured } from './app-token.js';
import { checkedToken, envToken, type TokenOrigin, tokenConflict } from './env-token.js';
import { ghAuthToken, ghHost } from './gh-auth-token.js';
import { withRepoFromOrigin } from './prerequisites.js';
import type { Env } from './secrets.js';

/**
 * The repository and the token a command works with, found the same way by `run`, `doctor`, `init`,
 * `board`, `status` and `claims`:
 * - the repository: `--repo`/`-R` > `--set repo=` > ISSUELOOP_REPO > GH_REPO > the config file's
 *   `repo:` > GITHUB_REPOSITORY (what Actions sets for every job, so a file naming another repository
 *   wins) > the `origin` remote of the checkout, when it is on GitHub (config/load-config.ts holds
 *   all but the last);
 * - the token: GH_TOKEN > GITHUB_TOKEN (gh's order) > `gh auth token` for the API's host, on the
 *   command line only (never in GitHub Actions, where a job's gh login is not the user's).
 * A GitHub App, when configured, wins over any token (github-deps.ts): no token is looked for then,
 * so `gh auth token` is not asked for one that would go unused.
 */
export interface GitHubTarget {
  repo?: string;
  /** Where `repo` came from: "--repo", "env GH_REPO", "issueloop.config.yaml", "the origin remote"… */
  repoSource?: string;
  token?: string;
  tokenSource?: TokenOrigin;
  /** To say once: both token variables are set and differ. */
  warnings: string[];
}

export interface GitHubTargetInput {
  env: Env;
  config: Config;
  /** Where `config.repo` came from (LoadedConfig.repoSource). */
  repoSource?: string;
  /** The checkout whose origin names the repository when nothing else does. */
  cwd: string;
  redact: Redactor;
  /** Ask `gh auth token` when no variable holds a token: the CLI does, the action never. */
  gh?: boolean;
  /** Look for a token too (default); `status` and `claims` need only the repository. */
  token?: boolean;
}

export const ORIGIN_SOURCE = 'the origin remote';

/** Whether `gh auth token` may be asked: the CLI on a person's machine, not a GitHub Actions job. */
function mayAskGh(input: GitHubTargetInput): boolean {
  return input.gh === true && input.env.GITHUB_ACTIONS !== 'true';
}

async function findToken(input: GitHubTargetInput): Promise<Pick<GitHubTarget, 'token' | 'tokenSource'>> {
  const found = envToken(input.env);
  if (found) return { token: checkedToken(found.name, found.token), tokenSource: found.name };
  if (!mayAskGh(input)) return {};
  const token = await ghAuthToken(input.env, ghHost(input.env));
  if (token === undefined) return {};
  return { token: checkedToken('gh auth token', token), tokenSource: 'gh auth token' };
}

/**
 * The command's repository and token; a token whose text is broken (a newline, a space) is a usage
 * error naming where it came from. No token and no repository are not errors here: each command
 * says what it lacks (prerequisites.ts).
 */
export async function resolveGitHubTarget(input: GitHubTargetInput): Promise<GitHubTarget> {
  const target: GitHubTarget = { warnings: [] };
  if (input.config.repo) {
    target.repo = input.config.repo;
    if (input.repoSource) target.repoSource = input.repoSource;
  } else {
    const found = await withRepoFromOrigin(input.config, input.cwd, input.env, input.redact);
    if (found.repo) {
      target.repo = found.repo;
      target.repoSource = ORIGIN_SOURCE;
    }
  }
  if (input.token === false || appConfigured(input.env, input.config)) return target;
  Object.assign(target, await findToken(input));
  const conflict = tokenConflict(input.env);
  if (conflict) target.warnings.push(conflict);
  return target;
}

/**
 * The environment the command's wiring reads the token from: a token from gh goes under GH_TOKEN,
 * which is scrubbed from the agent's environment and redacted like any token variable.
 */
export function targetEnv(env: Env, target: GitHubTarget): Env {
  return target.tokenSource === 'gh auth token' && target.token ? { ...env, GH_TOKEN: target.token } : env;
}

/** The configuration with the repository found. */
export function targetConfig(config: Config, target: GitHubTarget): Config {
  return target.repo && target.repo !== config.repo ? { ...config, repo: target.repo } : config;
}

/** `acme/widgets (from the origin remote)`, for doctor and the run's first line. */
export function describeRepo(target: GitHubTarget): string | undefined {
  if (!target.repo) return undefined;
  return target.repoSource ? `${target.repo} (from ${target.repoSource})` : target.repo;
}
