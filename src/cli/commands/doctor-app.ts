import type { AppTokenSource } from '../../github/app-auth.js';
import { appFailure, GitHubAppError } from '../../github/app-error.js';
import type { GitHubClient } from '../../github/client.js';
import type { Check } from './doctor-report.js';
import type { TokenKind } from './doctor-token-kind.js';
import type { TokenPermissions } from './doctor-token-needs.js';

/**
 * The doctor's line for a GitHub App: the repository's installation looked up (or the configured
 * one), a token minted for it and the App read as itself, as a run does before its first request.
 * What fails names the App's own fix (not installed, suspended, key refused: GitHubAppError).
 */

export interface MintedApp {
  check: Check;
  /** The minted token as the `token kind` line tells it, and what GitHub granted it. */
  kind?: TokenKind;
  permissions?: TokenPermissions;
}

const NAME = 'github app';

export async function checkApp(
  gh: GitHubClient,
  source: AppTokenSource,
  appId: number | string,
): Promise<MintedApp> {
  const slug = `${gh.repo.owner}/${gh.repo.name}`;
  try {
    const installation = await source.installationId();
    await source.token();
    const app = await source.appRequest<{ slug: string; id: number }>('GET /app').catch((err: unknown) => {
      throw appFailure('app', err, { appId, repo: gh.repo });
    });
    const permissions = source.permissions();
    return {
      check: {
        name: NAME,
        status: 'ok',
        detail: `GitHub App ${app.slug} (id ${app.id}), installation ${installation} on ${slug}, token renewed by issueloop`,
      },
      kind: { kind: 'app', probable: false, login: `${app.slug}[bot]`, minted: true },
      ...(permissions ? { permissions } : {}),
    };
  } catch (err) {
    if (err instanceof GitHubAppError) {
      return { check: { name: NAME, status: 'fail', detail: err.reason, fix: err.fix } };
    }
    const detail = err instanceof Error ? err.message : String(err);
    return {
      check: {
        name: NAME,
        status: 'fail',
        detail: `could not mint a token for the GitHub App ${appId} on ${slug}: ${gh.redact(detail)}`,
        fix: 'check GITHUB_API_URL and the network, then run doctor again',
      },
    };
  }
}
