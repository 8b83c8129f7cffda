import { scrubEnv } from '../agent/tools/scrub-env.js';
import { endpointProblems } from '../config/endpoints.js';
import type { Config } from '../config/schema.js';
import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { remoteUrl } from '../session/git/remote.js';
import { appConfigured } from './app-token.js';
import { variableTextProblem } from './env-token.js';
import { githubHosts, githubToken, NO_GITHUB_TOKEN } from './github-deps.js';
import type { Env } from './secrets.js';

/** What a command is about to use. */
export interface RunNeeds {
  /** The GitHub API: a token and a repository. */
  github: boolean;
  /** The Anthropic API (the native engine, or a fallback to it). */
  model: boolean;
}

/**
 * Everything a run needs and lacks, each with its fix, all at once: an endpoint variable that is not a
 * URL, the GitHub token, the repository, the Anthropic key. Nothing is read from the network.
 */
export function missingPrerequisites(env: Env, config: Config, needs: RunNeeds): string[] {
  const missing = endpointProblems(env).map((p) => `${p.problem}: ${p.fix}`);
  // A GitHub App (github.app.id or ISSUELOOP_APP_ID, with its key) mints its own tokens.
  if (needs.github && !githubToken(env) && !appConfigured(env, config)) {
    missing.push(`${NO_GITHUB_TOKEN}; or use a GitHub App (ISSUELOOP_APP_ID and ISSUELOOP_APP_PRIVATE_KEY)`);
  }
  if (needs.github && !config.repo) {
    missing.push(
      'no repository: pass --repo owner/name (or -R), set `repo:` in issueloop.config.yaml, GH_REPO or ISSUELOOP_REPO, or run in a clone whose origin is on GitHub',
    );
  }
  if (needs.model && !env.ANTHROPIC_API_KEY) missing.push('no Anthropic API key: export ANTHROPIC_API_KEY');
  const keyProblem =
    needs.model && env.ANTHROPIC_API_KEY
      ? variableTextProblem('ANTHROPIC_API_KEY', env.ANTHROPIC_API_KEY)
      : undefined;
  if (keyProblem) missing.push(keyProblem);
  return missing;
}

/** Refuses to start (exit 2) with every missing prerequisite listed, rather than one per attempt. */
export function assertPrerequisites(env: Env, config: Config, needs: RunNeeds): void {
  const missing = missingPrerequisites(env, config, needs);
  if (missing.length === 0) return;
  if (missing.length === 1) throw new UsageError(missing[0] as string);
  throw new UsageError(
    `cannot start: ${missing.length} prerequisites are missing:\n${missing.map((m) => `  - ${m}`).join('\n')}`,
  );
}

/**
 * `owner/name` of a GitHub remote URL (https, ssh or scp-like) on one of `hosts`; undefined for any
 * other remote. This is how `gh` finds the repository of a clone.
 */
export function repoFromRemote(url: string, hosts: ReadonlySet<string>): string | undefined {
  const scp = /^[\w.-]+@([^:/]+):([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  if (scp) return hosts.has(scp[1] as string) ? `${scp[2]}/${scp[3]}` : undefined;
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (!hosts.has(parsed.host)) return undefined;
  const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(parsed.pathname);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/**
 * The configured repository, else the one the checkout's origin points at on GitHub (as `gh` finds it):
 * `run` in a clone of acme/widgets needs no --repo.
 */
export async function withRepoFromOrigin(
  config: Config,
  cwd: string,
  env: Env,
  redact: Redactor,
): Promise<Config> {
  if (config.repo) return config;
  const url = await remoteUrl(cwd, 'origin', { env: scrubEnv(env), redact }).catch(() => undefined);
  const repo = url === undefined ? undefined : repoFromRemote(url, githubHosts(env));
  return repo ? { ...config, repo } : config;
}
