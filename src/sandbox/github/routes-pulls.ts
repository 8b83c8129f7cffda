import type { IssueRecord } from './records.js';
import {
  created,
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
import { pullJson } from './serialize.js';

/** `owner:branch` for a bare branch name, as GitHub labels heads in the base repository. */
function headLabel(ctx: RouteContext, head: string): string {
  return head.includes(':') ? head : `${ctx.store.owner.login}:${head}`;
}

function findPull(ctx: RouteContext): IssueRecord | undefined {
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
  return pagedReply(ctx, sortIssues(list, ctx), (issue) => pullJson(ctx.store, issue, ctx.urls));
}

function createPull(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  const title = stringField(body, 'title');
  const head = stringField(body, 'head');
  const base = stringField(body, 'base');
  if (title === undefined || title.trim() === '') return missingField('PullRequest', 'title');
  if (head === undefined) return missingField('PullRequest', 'head');
  if (base === undefined) return missingField('PullRequest', 'base');
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
  return created(pullJson(ctx.store, issue, ctx.urls));
}

function updatePull(ctx: RouteContext): Reply {
  const issue = findPull(ctx);
  if (!issue?.pull) return notFound();
  const body = objectBody(ctx.body);
  const state = stringField(body, 'state');
  if (state !== undefined && state !== 'open' && state !== 'closed') {
    return validationFailed([{ resource: 'PullRequest', code: 'invalid', field: 'state' }]);
  }
  const before = JSON.stringify([issue.title, issue.body, issue.pull.baseRef]);
  issue.title = stringField(body, 'title') ?? issue.title;
  if (typeof body.body === 'string' || body.body === null) issue.body = body.body;
  issue.pull.baseRef = stringField(body, 'base') ?? issue.pull.baseRef;
  if (JSON.stringify([issue.title, issue.body, issue.pull.baseRef]) !== before) {
    issue.updatedAt = ctx.store.timestamp();
  }
  if (state !== undefined) ctx.store.setIssueState(issue, state, ctx.token.login);
  return ok(pullJson(ctx.store, issue, ctx.urls));
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
];
