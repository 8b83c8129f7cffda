import { type GitHubClient, repoPath } from './client.js';
import { getAllPages, getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';
import { type BacklogIssue, sameLabel, WRITE_ASSOCIATIONS } from './issue-shape.js';

/**
 * Prompt-injection defence: the agent only works on issues a person with write access vouched for.
 * Either the author has write access (author_association OWNER, MEMBER or COLLABORATOR), or the
 * trigger label was last applied by someone with write permission, or a login listed in
 * `trusted_authors` wrote the issue or applied the label. Lookups are conditional requests, so an
 * unchanged backlog is re-checked for free every round.
 */
export type TrustDecision =
  | { trusted: true; reason: 'author_association' | 'trusted_author' | 'labeled_by_writer'; by: string }
  | { trusted: false; reason: string };

export interface TrustOptions {
  label: string;
  trustedAuthors: readonly string[];
}

export interface TrustGate {
  check(issue: BacklogIssue): Promise<TrustDecision>;
  /** A login's role on the repository (`admin`, `maintain`, `write`, `triage`, `read` or `none`). */
  permission(login: string): Promise<string>;
}

const WRITE_PERMISSIONS = new Set(['admin', 'maintain', 'write']);

/** Whether a role from `TrustGate.permission` may push, and so may put work in front of the agent. */
export function canWrite(permission: string): boolean {
  return WRITE_PERMISSIONS.has(permission);
}

interface LabelEvent {
  event: string;
  actor: string;
  actorType: string;
  label: string;
}

function reduceEvents(raw: unknown): LabelEvent[] {
  if (!Array.isArray(raw)) throw new TypeError('expected an array of issue events');
  const out: LabelEvent[] = [];
  for (const entry of raw as Array<Record<string, unknown>>) {
    if (entry.event !== 'labeled' && entry.event !== 'unlabeled') continue;
    const actor = entry.actor as { login?: unknown; type?: unknown } | null | undefined;
    const label = entry.label as { name?: unknown } | null | undefined;
    if (typeof actor?.login !== 'string' || typeof label?.name !== 'string') continue;
    out.push({
      event: entry.event,
      actor: actor.login,
      actorType: typeof actor.type === 'string' ? actor.type : 'User',
      label: label.name,
    });
  }
  return out;
}

function reducePermission(raw: unknown): string {
  const body = raw as { permission?: unknown; role_name?: unknown } | null;
  const role = typeof body?.role_name === 'string' ? body.role_name : undefined;
  const permission = typeof body?.permission === 'string' ? body.permission : 'none';
  // role_name is the precise one (maintain, triage); permission folds them into write/read.
  return role ?? permission;
}

/** Whether the issue's author alone makes it workable, without any request. */
export function trustFromAuthor(
  issue: BacklogIssue,
  trustedAuthors: readonly string[],
): TrustDecision | undefined {
  if ((WRITE_ASSOCIATIONS as readonly string[]).includes(issue.authorAssociation)) {
    return { trusted: true, reason: 'author_association', by: issue.author };
  }
  if (trustedAuthors.some((login) => sameLogin(login, issue.author))) {
    return { trusted: true, reason: 'trusted_author', by: issue.author };
  }
  return undefined;
}

function sameLogin(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export function createTrustGate(gh: GitHubClient, cache: EtagCache, options: TrustOptions): TrustGate {
  const repo = repoPath(gh.repo);
  // One lookup per login per gate; a gate lives for one round.
  const permissions = new Map<string, Promise<string>>();

  async function permissionOf(login: string): Promise<string> {
    let pending = permissions.get(login);
    if (!pending) {
      const url = `${repo}/collaborators/${encodeURIComponent(login)}/permission`;
      pending = getConditional(gh, cache, url, reducePermission, `read the permission of ${login}`)
        .then((page) => page.data)
        .catch((err: unknown) => {
          // Not a user of this repository at all (a bot of another installation, a deleted account).
          if (httpStatusOf(err) === 404) return 'none';
          throw err;
        });
      permissions.set(login, pending);
    }
    return pending;
  }

  return {
    permission: permissionOf,
    async check(issue) {
      const byAuthor = trustFromAuthor(issue, options.trustedAuthors);
      if (byAuthor) return byAuthor;
      const url = `${repo}/issues/${issue.number}/events?per_page=100`;
      const events = await getAllPages(gh, cache, url, reduceEvents, `read the events of #${issue.number}`);
      const labeler = events.items
        .filter((e) => e.event === 'labeled' && sameLabel(e.label, options.label))
        .at(-1);
      if (!labeler) {
        return {
          trusted: false,
          reason: `author ${issue.author} (${issue.authorAssociation}) has no write access and no labeled event for "${options.label}" was found`,
        };
      }
      if (options.trustedAuthors.some((login) => sameLogin(login, labeler.actor))) {
        return { trusted: true, reason: 'trusted_author', by: labeler.actor };
      }
      const permission = await permissionOf(labeler.actor);
      if (canWrite(permission)) return { trusted: true, reason: 'labeled_by_writer', by: labeler.actor };
      return {
        trusted: false,
        reason: `"${options.label}" was applied by ${labeler.actor} (permission ${permission}); only users with write access, or logins in trusted_authors, can queue an issue opened by ${issue.author} (${issue.authorAssociation})`,
      };
    },
  };
}
