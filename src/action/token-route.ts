import type { Config } from '../config/schema.js';

/**
 * How the action reaches GitHub, and what that means for the maintainer, said once before the run:
 * - `app`: the action mints and renews its own installation tokens (app_id / app_private_key);
 * - `actions`: the job's own GITHUB_TOKEN. GitHub starts no workflow for events it causes, so no CI
 *   runs on the pull requests issueloop opens: CI follow-ups and `pr.ready_when_green` never fire;
 * - `installation`: another App's installation token passed in from outside (actions/create-github-
 *   app-token, say). It lasts one hour and nobody renews it;
 * - `user`: a personal access token (or an OAuth token): CI runs, it lasts the run.
 */
export type TokenRoute = 'app' | 'actions' | 'installation' | 'user';

/** The Actions token's bot, as GraphQL's `viewer.login` names it. */
export const ACTIONS_BOT = 'github-actions[bot]';

/** An installation token lives one hour; a job longer than this may outlive it. */
export const ONE_HOUR_TOKEN_LIMIT_MS = 55 * 60_000;

/** The route of a token from who GitHub says it is (`viewer.login`); with an App, always `app`. */
export function tokenRoute(app: boolean, viewer: string | undefined): TokenRoute {
  if (app) return 'app';
  const login = (viewer ?? '').toLowerCase();
  if (login === ACTIONS_BOT) return 'actions';
  return login.endsWith('[bot]') ? 'installation' : 'user';
}

export const APP_FIX = `create a GitHub App (Contents, Issues, Pull requests: read & write), install it on the repository, and pass \`app_id: $\{{ vars.ISSUELOOP_APP_ID }}\` and \`app_private_key: $\{{ secrets.ISSUELOOP_APP_PRIVATE_KEY }}\``;

export interface RouteNotes {
  /** Said at the top of the log and of the job summary. */
  warnings: string[];
  /** What the route switches off, one line each, shown under the warning. */
  inactive: string[];
}

/**
 * What the maintainer should know of a route. `lastsMs` is how long the job may run (drain mode:
 * time_budget; issue mode: one session's max_duration).
 */
export function routeNotes(route: TokenRoute, config: Pick<Config, 'pr'>, lastsMs: number): RouteNotes {
  const notes: RouteNotes = { warnings: [], inactive: [] };
  if (route === 'actions') {
    notes.warnings.push(
      `issueloop runs with the job's GITHUB_TOKEN: GitHub starts no workflow for pull requests and pushes made with it, so CI will not run on issueloop's pull requests. To have CI run, ${APP_FIX}.`,
    );
    notes.inactive.push('CI follow-ups: inactive (no CI runs on these pull requests)');
    if (config.pr.ready_when_green) {
      notes.inactive.push('pr.ready_when_green: inactive (no check will turn green on these pull requests)');
    }
  }
  if (route === 'installation' && lastsMs > ONE_HOUR_TOKEN_LIMIT_MS) {
    notes.warnings.push(
      `github_token is an App installation token, which GitHub expires one hour after it was minted, and this job may run ${Math.round(lastsMs / 60_000)} minutes: requests will fail with "Bad credentials" once it expires. Pass app_id and app_private_key instead, so issueloop mints and renews its own tokens, or keep time_budget under 55m.`,
    );
  }
  return notes;
}

/**
 * How the action reaches GitHub, said once at the top of the log (and later of the job summary):
 * the Actions token's consequences (no CI on its PRs), a one-hour token outliving the job. The
 * token's bot is asked of GitHub (`viewer`) only without an App.
 */
export async function announceRoute(
  core: { warning(message: string): void; info(message: string): void },
  input: { app: boolean; config: Pick<Config, 'pr'>; lastsMs: number; viewer: () => Promise<string> },
): Promise<RouteNotes> {
  const viewer = input.app ? undefined : await input.viewer().catch(() => undefined);
  const notes = routeNotes(tokenRoute(input.app, viewer), input.config, input.lastsMs);
  for (const warning of notes.warnings) core.warning(`issueloop: ${warning}`);
  for (const line of notes.inactive) core.info(`issueloop: ${line}`);
  return notes;
}
