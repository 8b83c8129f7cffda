import { closePull, mergePull } from './pull-merge.js';
import { branchSha, pullShas } from './pull-refs.js';
import type { IssueRecord } from './records.js';
import {
  created,
  errorReply,
  missingField,
  notFound,
  objectBody,
  ok,
  type Reply,
  stringField,
  validationFailed,
} from './replies.js';
import type { Route, RouteContext } from './router.js';
import { findIssue, pagedReply, sortIssues, stateFilter } from './routes-issues.js';
import { pullJson, pullSimpleJson } from './serialize.js';
import type { MergeMethod } from './types.js';

/** `owner:branch` for a bare branch name, as GitHub labels heads in the base repository. */
function headLabel(ctx: RouteContext, head: string): string {
  return head.includes(':') ? head : `${ctx.store.owner.login}:${head}`;
}

export function findPull(ctx: RouteContext): IssueRecord | undefined {
  const issue = findIssue(ctx);
  return issue?.pull ? issue : undefined;
}

function listPulls(ctx: RouteContext): Reply {
  const byState = stateFilter(ctx);
  if (!byState) return validationFailed([{ resource: 'PullRequest', code: 'invalid', field: 'state' }]);
  const head = ctx.url.searchParams.get('head');
  const base = ctx.url.searchParams.get('base');
  const wantedHead = head === null ? undefined : headLabel(ctx, head).toLowerCase();
  const list = [...ctx.store.issues.values()].filter(
    (issue) =>
      issue.pull !== undefined &&
      byState(issue) &&
      (wantedHead === undefined || issue.pull.headLabel.toLowerCase() === wantedHead) &&
      (base === null || issue.pull.baseRef === base),
  );
  return pagedReply(ctx, sortIssues(list, ctx), (issue) => pullSimpleJson(ctx.store, issue, ctx.urls));
}

/** With `origin`, GitHub's 422 for a head or base branch the repository does not have. */
function missingBranch(ctx: RouteContext, head: string, base: string): Reply | undefined {
  if (!ctx.store.lifecycle.origin) return undefined;
  const own = head.includes(':')
    ? head.split(':')[0]?.toLowerCase() === ctx.store.owner.login.toLowerCase()
    : true;
  const branch = head.slice(head.indexOf(':') + 1);
  const invalid = [
    ...(own && branchSha(ctx.store, branch) === undefined ? ['head'] : []),
    ...(branchSha(ctx.store, base) === undefined ? ['base'] : []),
  ];
  if (invalid.length === 0) return undefined;
  return validationFailed(invalid.map((field) => ({ resource: 'PullRequest', field, code: 'invalid' })));
}

function createPull(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  const title = stringField(body, 'title');
  const head = stringField(body, 'head');
  const base = stringField(body, 'base');
  if (title === undefined || title.trim() === '') return missingField('PullRequest', 'title');
  if (head === undefined) return missingField('PullRequest', 'head');
  if (base === undefined) return missingField('PullRequest', 'base');
  const unknown = missingBranch(ctx, head, base);
  if (unknown) return unknown;
  const label = headLabel(ctx, head);
  const duplicate = [...ctx.store.issues.values()].some(
    (issue) => issue.state === 'open' && issue.pull?.headLabel.toLowerCase() === label.toLowerCase(),
  );
  if (duplicate) {
    return validationFailed([
      { resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${label}.` },
    ]);
  }
  const issue = ctx.store.createIssue({
    title,
    body: stringField(body, 'body') ?? null,
    author: ctx.token.login,
    pull: {
      headRef: label.slice(label.indexOf(':') + 1),
      headLabel: label,
      baseRef: base,
      draft: body.draft === true,
    },
  });
  // GitHub starts computing mergeability only now: the creation's answer does not have it yet.
  return created(pullJson(ctx.store, issue, ctx.urls, { mergeable: null, state: 'unknown' }));
}

function updatePull(ctx: RouteContext): Reply {
  const issue = findPull(ctx);
  if (!issue?.pull) return notFound();
  const body = objectBody(ctx.body);
  const state = stringField(body, 'state');
  // A merged PR stays closed, as on GitHub.
  const reopensMerged = state === 'open' && issue.pull.merged !== undefined;
  if ((state !== undefined && state !== 'open' && state !== 'closed') || reopensMerged) {
    return validationFailed([{ resource: 'PullRequest', code: 'invalid', field: 'state' }]);
  }
  const before = JSON.stringify([issue.title, issue.body, issue.pull.baseRef]);
  issue.title = stringField(body, 'title') ?? issue.title;
  if (typeof body.body === 'string' || body.body === null) issue.body = body.body;
  issue.pull.baseRef = stringField(body, 'base') ?? issue.pull.baseRef;
  if (JSON.stringify([issue.title, issue.body, issue.pull.baseRef]) !== before) {
    issue.updatedAt = ctx.store.timestamp();
  }
  if (state === 'closed') closePull(ctx.store, issue, ctx.token.login);
  else if (state !== undefined) ctx.store.setIssueState(issue, state, ctx.token.login);
  return ok(pullJson(ctx.store, issue, ctx.urls));
}

/**
 * `POST /pulls/{n}/requested_reviewers`: each login must be a collaborator other than the PR's
 * author (GitHub's 422 otherwise); asking twice asks once.
 */
function requestReviewers(ctx: RouteContext): Reply {
  const issue = findPull(ctx);
  if (!issue?.pull) return notFound();
  const body = objectBody(ctx.body);
  const wanted = Array.isArray(body.reviewers) ? body.reviewers.filter((r) => typeof r === 'string') : [];
  const refused = wanted.find(
    (login) =>
      login.toLowerCase() === issue.author.toLowerCase() ||
      ctx.store.findUser(login) === undefined ||
      ctx.store.roleOf(login) === 'none',
  );
  if (refused !== undefined) {
    return validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ${ctx.store.owner.login}/${ctx.store.repo.name} repository.`,
      },
    ]);
  }
  const asked = issue.pull.requestedReviewers ?? [];
  for (const login of wanted)
    if (!asked.some((a) => a.toLowerCase() === login.toLowerCase())) asked.push(login);
  issue.pull.requestedReviewers = asked;
  issue.updatedAt = ctx.store.timestamp();
  return created(pullJson(ctx.store, issue, ctx.urls));
}

const MERGE_METHODS: readonly string[] = ['merge', 'squash', 'rebase'] satisfies MergeMethod[];

/** `PUT /pulls/{n}/merge`: GitHub's 405 for a draft or a PR that cannot merge, 409 for a moved head. */
function mergeRoute(ctx: RouteContext): Reply {
  const issue = findPull(ctx);
  if (!issue?.pull) return notFound();
  const body = objectBody(ctx.body);
  const method = stringField(body, 'merge_method') ?? 'merge';
  if (!MERGE_METHODS.includes(method)) {
    return validationFailed([{ resource: 'PullRequest', code: 'invalid', field: 'merge_method' }]);
  }
  if (issue.state === 'open' && issue.pull.draft) return errorReply(405, 'Pull Request is still a draft');
  const title = stringField(body, 'commit_title');
  const message = stringField(body, 'commit_message');
  const sha = stringField(body, 'sha');
  const outcome = mergePull(ctx.store, issue, ctx.token.login, {
    method: method as MergeMethod,
    ...(sha === undefined ? {} : { sha }),
    ...(title === undefined ? {} : { title }),
    ...(message === undefined ? {} : { message }),
  });
  if (!outcome.ok) return errorReply(outcome.status, outcome.message);
  return ok({ sha: outcome.sha, merged: true, message: 'Pull Request successfully merged' });
}

/** A PR's commits, oldest first: from `origin` when there is one (none without it). */
function listPullCommits(ctx: RouteContext): Reply {
  const issue = findPull(ctx);
  if (!issue) return notFound();
  const origin = ctx.store.lifecycle.origin;
  const { head, base } = pullShas(ctx.store, issue);
  const commits = origin ? origin.commitsBetween(base, head) : [];
  const person = (who: { name: string; email: string; time: number }) => ({
    name: who.name,
    email: who.email,
    date: new Date(who.time * 1000).toISOString(),
  });
  return pagedReply(ctx, commits, (c) => ({
    sha: c.sha,
    commit: { author: person(c.author), committer: person(c.committer ?? c.author), message: c.message },
    // GitHub links a commit to an account by its e-mail; the emulator knows no e-mails.
    author: null,
    committer: null,
  }));
}

export const pullRoutes: readonly Route[] = [
  { method: 'GET', pattern: '/repos/:owner/:repo/pulls', handle: listPulls },
  { method: 'POST', pattern: '/repos/:owner/:repo/pulls', handle: createPull },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/pulls/:number',
    handle: (ctx) => {
      const issue = findPull(ctx);
      return issue ? ok(pullJson(ctx.store, issue, ctx.urls)) : notFound();
    },
  },
  { method: 'PATCH', pattern: '/repos/:owner/:repo/pulls/:number', handle: updatePull },
  { method: 'GET', pattern: '/repos/:owner/:repo/pulls/:number/commits', handle: listPullCommits },
  { method: 'PUT', pattern: '/repos/:owner/:repo/pulls/:number/merge', handle: mergeRoute },
  {
    method: 'POST',
    pattern: '/repos/:owner/:repo/pulls/:number/requested_reviewers',
    handle: requestReviewers,
  },
  {
    // GitHub's "check if a pull request has been merged": 204 if so, else 404.
    method: 'GET',
    pattern: '/repos/:owner/:repo/pulls/:number/merge',
    handle: (ctx) => (findPull(ctx)?.pull?.merged ? { status: 204 } : notFound()),
  },
];
