import { resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { type Clock, systemClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import { createGitHubClient, endpointsFromEnv, type GitHubClient, type RepoRef } from '../github/client.js';
import { tokenSourceFor } from './app-token.js';
import { checkedToken, envToken, TOKEN_NAMES_TEXT } from './env-token.js';
import type { Env } from './secrets.js';

/** Builds the GitHub client for a command from the environment and the configuration. */

/** The token of GH_TOKEN, else GITHUB_TOKEN (gh's order; a token from `gh auth token` is put in GH_TOKEN). */
export function githubToken(env: Env): string | undefined {
  return envToken(env)?.token;
}

export const NO_GITHUB_TOKEN = `no GitHub token: export ${TOKEN_NAMES_TEXT}, or log in with \`gh auth login\`; a classic token needs the \`repo\` scope, plus \`project\` for a Projects v2 board`;

/** The token, its text checked (a newline or a space in it is a usage error naming the variable). */
export function requireGithubToken(env: Env): string {
  const found = envToken(env);
  if (!found) throw new UsageError(NO_GITHUB_TOKEN);
  return checkedToken(found.name, found.token);
}

export function repoRef(slug: string): RepoRef {
  const [owner = '', name = ''] = slug.split('/');
  return { owner, name };
}

export interface GithubDepsInput {
  env: Env;
  config: Config;
  cwd: string;
  log: Log;
  redact: Redactor;
  version: string;
  /** Injected by tests; the real fetch otherwise. */
  fetch?: typeof fetch;
  /** A repository to fall back on when none is configured (board commands only need an owner). */
  repoFallback?: RepoRef;
  /** Pacing of writes; GitHub's advice (1 s) unless an emulator is on the other end. */
  writeSpacingMs?: number;
  /** The clock a GitHub App's tokens are renewed by; the system's unless a test injects one. */
  clock?: Clock;
}

export function buildGitHubClient(input: GithubDepsInput): GitHubClient {
  const repo = input.config.repo ? repoRef(input.config.repo) : input.repoFallback;
  const endpoints = endpointsFromEnv(input.env);
  const userAgent = `issueloop/${input.version}`;
  const fetch = input.fetch ?? globalThis.fetch;
  const clock = input.clock ?? systemClock;
  // With a GitHub App configured, its installation tokens; otherwise the token in the environment.
  const app = repo && tokenSourceFor({ ...input, repo, apiUrl: endpoints.apiUrl, userAgent, fetch, clock });
  const auth = app ? { tokenSource: app } : { token: requireGithubToken(input.env) };
  if (!repo) {
    throw new UsageError(
      'no repository: pass --repo owner/name (or -R), set `repo:` in issueloop.config.yaml, GH_REPO or ISSUELOOP_REPO',
    );
  }
  const projectsToken = input.env.ISSUELOOP_PROJECTS_TOKEN
    ? checkedToken('ISSUELOOP_PROJECTS_TOKEN', input.env.ISSUELOOP_PROJECTS_TOKEN)
    : undefined;
  return createGitHubClient({
    ...endpoints,
    ...auth,
    ...(projectsToken ? { projectsToken } : {}),
    repo,
    userAgent,
    fetch,
    log: input.log,
    clock,
    redact: input.redact,
    writeSpacingMs: input.writeSpacingMs ?? input.config.github.write_spacing,
  });
}

export function stateDirOf(config: Config, cwd: string): string {
  return resolve(cwd, config.state_dir);
}

/** Hosts the GitHub token may be sent to by git: github.com, or the GitHub Enterprise server in use. */
export function githubHosts(env: Env): Set<string> {
  const hosts = new Set(['github.com']);
  for (const value of [env.GITHUB_SERVER_URL, env.GITHUB_API_URL]) {
    if (!value) continue;
    try {
      const host = new URL(value).host;
      // api.github.com serves github.com, whose git is on github.com.
      if (host !== 'api.github.com') hosts.add(host);
    } catch {
      // Not a URL: config validation reports it elsewhere.
    }
  }
  return hosts;
}
