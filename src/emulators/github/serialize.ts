import { type Mergeability, mergeability } from './pull-merge.js';
import { pullShas, requirePull } from './pull-refs.js';
import type { CommentRecord, EventRecord, IssueRecord, LabelRecord, UserRecord } from './records.js';
import type {
  CommentJson,
  EventJson,
  IssueJson,
  LabelJson,
  PullJson,
  PullSimpleJson,
  UserJson,
} from './rest-shapes.js';
import { reviewCommentsOf } from './reviews-state.js';
import type { Store } from './store.js';

/** Where the JSON's own URLs point: the API base the request came in on, and the web host. */
export interface Urls {
  api: string;
  html: string;
}

/** The web host GitHub pairs with an API host: `api.github.test` → `github.test`. */
export function htmlBaseFor(apiBase: string): string {
  const url = new URL(apiBase);
  return `${url.protocol}//${url.host.replace(/^api\./, '')}`;
}

export function repoApi(store: Store, urls: Urls): string {
  return `${urls.api}/repos/${store.owner.login}/${store.repo.name}`;
}

export function repoHtml(store: Store, urls: Urls): string {
  return `${urls.html}/${store.owner.login}/${store.repo.name}`;
}

export function userJson(user: UserRecord, urls: Urls): UserJson {
  return {
    login: user.login,
    id: user.id,
    node_id: user.nodeId,
    url: `${urls.api}/users/${user.login}`,
    html_url: `${urls.html}/${user.login}`,
    type: user.type,
    site_admin: false,
  };
}

export function userOf(store: Store, login: string, urls: Urls): UserJson {
  return userJson(store.ensureUser(login), urls);
}

export function labelJson(store: Store, label: LabelRecord, urls: Urls): LabelJson {
  return {
    id: label.id,
    node_id: label.nodeId,
    url: `${repoApi(store, urls)}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: false,
    description: label.description,
  };
}

export function issueLabelsJson(store: Store, issue: IssueRecord, urls: Urls): LabelJson[] {
  return issue.labels.flatMap((key) => {
    const label = store.findLabel(key);
    return label ? [labelJson(store, label, urls)] : [];
  });
}

/** GitHub's counts of an issue's dependencies, open ones apart (they change as blockers close). */
function dependencySummary(store: Store, issue: IssueRecord): IssueJson['issue_dependencies_summary'] {
  const isOpen = (number: number) => store.issues.get(number)?.state === 'open';
  const blockers = issue.blockedBy ?? [];
  const blocked = [...store.issues.values()].filter((other) => other.blockedBy?.includes(issue.number));
  return {
    blocked_by: blockers.filter(isOpen).length,
    blocking: blocked.filter((other) => other.state === 'open').length,
    total_blocked_by: blockers.length,
    total_blocking: blocked.length,
  };
}

export function issueJson(store: Store, issue: IssueRecord, urls: Urls): IssueJson {
  const api = `${repoApi(store, urls)}/issues/${issue.number}`;
  const kind = issue.pull ? 'pull' : 'issues';
  const json: IssueJson = {
    url: api,
    repository_url: repoApi(store, urls),
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `${repoHtml(store, urls)}/${kind}/${issue.number}`,
    id: issue.id,
    node_id: issue.nodeId,
    number: issue.number,
    title: issue.title,
    user: userOf(store, issue.author, urls),
    labels: issueLabelsJson(store, issue, urls),
    state: issue.state,
    state_reason: issue.stateReason,
    locked: false,
    comments: store.comments.filter((c) => c.issueNumber === issue.number).length,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    author_association: issue.authorAssociation,
    body: issue.body,
    issue_dependencies_summary: dependencySummary(store, issue),
  };
  if (issue.pull) {
    // First, so that a head seen to have moved shows in `updated_at` below.
    pullShas(store, issue);
    json.updated_at = issue.updatedAt;
    json.draft = issue.pull.draft;
    json.pull_request = {
      url: `${repoApi(store, urls)}/pulls/${issue.number}`,
      html_url: `${repoHtml(store, urls)}/pull/${issue.number}`,
      diff_url: `${repoHtml(store, urls)}/pull/${issue.number}.diff`,
      patch_url: `${repoHtml(store, urls)}/pull/${issue.number}.patch`,
      merged_at: issue.pull.merged?.at ?? null,
    };
  }
  return json;
}

/** An issue or PR as `GET /issues/{n}` answers: with `closed_by`, the actor of its last close. */
export function singleIssueJson(store: Store, issue: IssueRecord, urls: Urls): IssueJson {
  const closed =
    issue.state === 'closed'
      ? store.events.findLast((e) => e.issueNumber === issue.number && e.event === 'closed')
      : undefined;
  return { ...issueJson(store, issue, urls), closed_by: closed ? userOf(store, closed.actor, urls) : null };
}

/** A PR as `GET /pulls` lists it. */
export function pullSimpleJson(store: Store, issue: IssueRecord, urls: Urls): PullSimpleJson {
  const pull = requirePull(issue);
  const shas = pullShas(store, issue);
  const ref = (name: string, label: string, sha: string) => ({ label, ref: name, sha });
  return {
    url: `${repoApi(store, urls)}/pulls/${issue.number}`,
    id: pull.id,
    node_id: issue.nodeId,
    html_url: `${repoHtml(store, urls)}/pull/${issue.number}`,
    issue_url: `${repoApi(store, urls)}/issues/${issue.number}`,
    number: issue.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: userOf(store, issue.author, urls),
    body: issue.body,
    labels: issueLabelsJson(store, issue, urls),
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: pull.merged?.at ?? null,
    merge_commit_sha: pull.merged?.sha ?? null,
    draft: pull.draft,
    head: ref(pull.headRef, pull.headLabel, shas.head),
    base: ref(pull.baseRef, `${store.owner.login}:${pull.baseRef}`, shas.base),
    requested_reviewers: (pull.requestedReviewers ?? []).map((login) => userOf(store, login, urls)),
    author_association: issue.authorAssociation,
  };
}

/**
 * A single PR, with its mergeability computed now (`merge` overrides it: right after creation
 * GitHub has not computed it yet).
 */
export function pullJson(store: Store, issue: IssueRecord, urls: Urls, merge?: Mergeability): PullJson {
  const simple = pullSimpleJson(store, issue, urls);
  const { mergeable, state } = merge ?? mergeability(store, issue);
  const merged = requirePull(issue).merged;
  return {
    ...simple,
    merged: merged !== undefined,
    mergeable,
    mergeable_state: state,
    merged_by: merged ? userOf(store, merged.by, urls) : null,
    // GitHub's full PR object counts its conversation (issue comments) and its review comments.
    comments: store.comments.filter((c) => c.issueNumber === issue.number).length,
    review_comments: reviewCommentsOf(store, issue.number).length,
  };
}

export function commentJson(store: Store, comment: CommentRecord, urls: Urls): CommentJson {
  return {
    url: `${repoApi(store, urls)}/issues/comments/${comment.id}`,
    html_url: `${repoHtml(store, urls)}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${repoApi(store, urls)}/issues/${comment.issueNumber}`,
    id: comment.id,
    node_id: comment.nodeId,
    user: userOf(store, comment.author, urls),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: comment.authorAssociation,
    body: comment.body,
  };
}

export function eventJson(store: Store, event: EventRecord, urls: Urls): EventJson {
  return {
    id: event.id,
    node_id: event.nodeId,
    url: `${repoApi(store, urls)}/issues/events/${event.id}`,
    actor: userOf(store, event.actor, urls),
    event: event.event,
    commit_id: event.commitId ?? null,
    commit_url: event.commitId ? `${repoApi(store, urls)}/commits/${event.commitId}` : null,
    created_at: event.createdAt,
    ...(event.label ? { label: event.label } : {}),
    ...(event.rename ? { rename: event.rename } : {}),
  };
}
