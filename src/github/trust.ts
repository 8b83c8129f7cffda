import { type GitHubClient, repoPath } from './client.js';
import { getAllPages, getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';
import { type BodyEdits, readBodyEdits } from './issue-edits.js';
import { type BacklogIssue, sameLabel, WRITE_ASSOCIATIONS } from './issue-shape.js';

/**
 * Prompt-injection defence: the agent only works on issues a person with write access vouched for.
 * Either the author has write access (author_association OWNER, MEMBER or COLLABORATOR), or the
 * trigger label was last applied by someone with write permission, or a login listed in
 * `trusted_authors` wrote the issue or applied the label.
 *
 * A label vouches for the text as it was: when the title or the body was last changed after that
 * label by someone who could not have vouched (no write access, not in `trusted_authors`), the issue
 * is untrusted until someone who can re-applies the label. Title changes are the `renamed` events
 * read with the label events; body edits come from one GraphQL query per round for the issues a
 * label vouched for (`checkAll`). Other lookups are conditional requests, so an unchanged backlog is
 * re-checked for free every round, GraphQL aside.
 */
export type TrustDecision =
  | { trusted: true; reason: 'author_association' | 'trusted_author' | 'labeled_by_writer'; by: string }
  | { trusted: false; reason: string };

export interface TrustOptions {
  label: string;
  trustedAuthors: readonly string[];
}

export interface TrustGate {
  /** Decisions for the issues of a round: the label gate each, then one body-edit query for all. */
  checkAll(issues: readonly BacklogIssue[]): Promise<Map<number, TrustDecision>>;
  check(issue: BacklogIssue): Promise<TrustDecision>;
  /** A login's role on the repository (`admin`, `maintain`, `write`, `triage`, `read` or `none`). */
  permission(login: string): Promise<string>;
}

const WRITE_PERMISSIONS = new Set(['admin', 'maintain', 'write']);

/** Whether a role from `TrustGate.permission` may push, and so may put work in front of the agent. */
export function canWrite(permission: string): boolean {
  return WRITE_PERMISSIONS.has(permission);
}

interface IssueEvent {
  event: 'labeled' | 'unlabeled' | 'renamed';
  actor: string;
  /** For labeled and unlabeled events. */
  label?: string;
  createdAt: string;
}

function reduceEvents(raw: unknown): IssueEvent[] {
  if (!Array.isArray(raw)) throw new TypeError('expected an array of issue events');
  const out: IssueEvent[] = [];
  for (const entry of raw as Array<Record<string, unknown>>) {
    const event = entry.event;
    if (event !== 'labeled' && event !== 'unlabeled' && event !== 'renamed') continue;
    const actor = entry.actor as { login?: unknown } | null | undefined;
    const label = entry.label as { name?: unknown } | null | undefined;
    const createdAt = typeof entry.created_at === 'string' ? entry.created_at : '';
    // A deleted account shows as null; GitHub renders it as "ghost" (who cannot vouch).
    const login = typeof actor?.login === 'string' ? actor.login : 'ghost';
    if (event === 'renamed') out.push({ event, actor: login, createdAt });
    else if (typeof label?.name === 'string') out.push({ event, actor: login, label: label.name, createdAt });
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

/** A decision that rests on a label: what the label vouched for may have changed since. */
interface LabelCheck {
  decision: TrustDecision;
  vouch?: { by: string; at: string };
}

/** A login's permission on the repository, looked up once per login per gate (a gate lives for one round). */
function createPermissionLookup(
  gh: GitHubClient,
  cache: EtagCache,
  repo: string,
): (login: string) => Promise<string> {
  const permissions = new Map<string, Promise<string>>();
  return async (login: string): Promise<string> => {
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
  };
}

/** Undefined when the body's last edit leaves the label's vouch standing. */
async function judgeBodyEdit(
  issue: BacklogIssue,
  vouch: { by: string; at: string },
  edits: BodyEdits,
  judge: { label: string; relabel: string; mayVouch(login: string): Promise<{ may: boolean; as: string }> },
): Promise<TrustDecision | undefined> {
  const { label, relabel, mayVouch } = judge;
  const edit = edits.get(issue.nodeId);
  if (edit === undefined) {
    return {
      trusted: false,
      reason: `GitHub did not say who last edited its body (node ${issue.nodeId}); it is checked again next round`,
    };
  }
  // The same second counts as after: the labeller may not have seen that edit.
  if (edit === null || Date.parse(edit.at) < Date.parse(vouch.at)) return undefined;
  const editor = await mayVouch(edit.by);
  if (editor.may) return undefined;
  return {
    trusted: false,
    reason: `the body was edited by ${edit.by} (${editor.as}) at ${edit.at}, after ${vouch.by} applied "${label}" at ${vouch.at}; ${relabel}`,
  };
}

export function createTrustGate(gh: GitHubClient, cache: EtagCache, options: TrustOptions): TrustGate {
  const repo = repoPath(gh.repo);
  const relabel = `someone with write access can remove and re-apply "${options.label}" to vouch for the new text`;

  const permissionOf = createPermissionLookup(gh, cache, repo);

  /** Who may vouch for an issue's text, and so may also change it without revoking a vouch. */
  async function mayVouch(login: string): Promise<{ may: boolean; as: string }> {
    if (options.trustedAuthors.some((trusted) => sameLogin(trusted, login))) {
      return { may: true, as: 'trusted_authors' };
    }
    const permission = await permissionOf(login);
    return { may: canWrite(permission), as: `permission ${permission}` };
  }

  async function checkLabel(issue: BacklogIssue): Promise<LabelCheck> {
    const byAuthor = trustFromAuthor(issue, options.trustedAuthors);
    if (byAuthor) return { decision: byAuthor };
    const url = `${repo}/issues/${issue.number}/events?per_page=100`;
    const events = (await getAllPages(gh, cache, url, reduceEvents, `read the events of #${issue.number}`))
      .items;
    const at = events.findLastIndex(
      (e) => e.event === 'labeled' && e.label !== undefined && sameLabel(e.label, options.label),
    );
    const labeler = events[at];
    if (!labeler) {
      const reason = `author ${issue.author} (${issue.authorAssociation}) has no write access and no labeled event for "${options.label}" was found`;
      return { decision: { trusted: false, reason } };
    }
    const vouch = await mayVouch(labeler.actor);
    if (!vouch.may) {
      const reason = `"${options.label}" was applied by ${labeler.actor} (${vouch.as}); only users with write access, or logins in trusted_authors, can queue an issue opened by ${issue.author} (${issue.authorAssociation})`;
      return { decision: { trusted: false, reason } };
    }
    // Events come in order, so "after the label" needs no timestamp: the current title is the last rename's.
    const rename = events.slice(at + 1).findLast((e) => e.event === 'renamed');
    if (rename) {
      const renamer = await mayVouch(rename.actor);
      if (!renamer.may) {
        const reason = `the title was changed by ${rename.actor} (${renamer.as}) after ${labeler.actor} applied "${options.label}"; ${relabel}`;
        return { decision: { trusted: false, reason } };
      }
    }
    const reason = vouch.as === 'trusted_authors' ? 'trusted_author' : 'labeled_by_writer';
    return {
      decision: { trusted: true, reason, by: labeler.actor },
      vouch: { by: labeler.actor, at: labeler.createdAt },
    };
  }

  async function checkAll(issues: readonly BacklogIssue[]): Promise<Map<number, TrustDecision>> {
    const decisions = new Map<number, TrustDecision>();
    const vouched: Array<{ issue: BacklogIssue; vouch: { by: string; at: string } }> = [];
    for (const issue of issues) {
      const checked = await checkLabel(issue);
      decisions.set(issue.number, checked.decision);
      if (checked.vouch) vouched.push({ issue, vouch: checked.vouch });
    }
    if (vouched.length === 0) return decisions;
    const edits = await readBodyEdits(
      gh,
      vouched.map(({ issue }) => issue.nodeId),
    );
    for (const { issue, vouch } of vouched) {
      const revoked = await judgeBodyEdit(issue, vouch, edits, { label: options.label, relabel, mayVouch });
      if (revoked) decisions.set(issue.number, revoked);
    }
    return decisions;
  }

  return {
    permission: permissionOf,
    checkAll,
    async check(issue) {
      const decision = (await checkAll([issue])).get(issue.number);
      if (!decision) throw new Error(`no trust decision for #${issue.number}`);
      return decision;
    },
  };
}
