import { paginate } from './pagination.js';
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
import { intParam, type Route, type RouteContext } from './router.js';
import { eventJson, issueJson, singleIssueJson } from './serialize.js';

/** Open, closed or all, from `state`; GitHub answers 422 for anything else. */
export function stateFilter(ctx: RouteContext): ((issue: IssueRecord) => boolean) | undefined {
  const state = ctx.url.searchParams.get('state') ?? 'open';
  if (state === 'all') return () => true;
  if (state === 'open' || state === 'closed') return (issue) => issue.state === state;
  return undefined;
}

/** Sorts by `sort` (created or updated) and `direction` (desc by default); numbers break ties. */
export function sortIssues(list: IssueRecord[], ctx: RouteContext): IssueRecord[] {
  const key = ctx.url.searchParams.get('sort') === 'updated' ? 'updatedAt' : 'createdAt';
  const sign = ctx.url.searchParams.get('direction') === 'asc' ? 1 : -1;
  return list.sort((a, b) => sign * (a[key].localeCompare(b[key]) || a.number - b.number));
}

export function pagedReply<T>(ctx: RouteContext, list: readonly T[], toJson: (item: T) => unknown): Reply {
  const page = paginate(list, ctx.url);
  return ok(page.items.map(toJson), page.link ? { link: page.link } : undefined);
}

export function findIssue(ctx: RouteContext): IssueRecord | undefined {
  const number = intParam(ctx, 'number');
  return number === undefined ? undefined : ctx.store.issues.get(number);
}

function listIssues(ctx: RouteContext): Reply {
  const byState = stateFilter(ctx);
  if (!byState) return validationFailed([{ resource: 'Issue', code: 'invalid', field: 'state' }]);
  const query = ctx.url.searchParams;
  const wanted = (query.get('labels') ?? '')
    .split(',')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l !== '');
  const since = query.get('since');
  const creator = query.get('creator')?.toLowerCase();
  const list = [...ctx.store.issues.values()].filter(
    (issue) =>
      byState(issue) &&
      wanted.every((label) => issue.labels.includes(label)) &&
      (since === null || issue.updatedAt >= since) &&
      (creator === undefined || issue.author.toLowerCase() === creator),
  );
  return pagedReply(ctx, sortIssues(list, ctx), (issue) => issueJson(ctx.store, issue, ctx.urls));
}

function updateIssue(ctx: RouteContext): Reply {
  const issue = findIssue(ctx);
  if (!issue) return notFound();
  const body = objectBody(ctx.body);
  const state = stringField(body, 'state');
  if (state !== undefined && state !== 'open' && state !== 'closed') {
    return validationFailed([{ resource: 'Issue', code: 'invalid', field: 'state' }]);
  }
  const title = stringField(body, 'title');
  if (title !== undefined && title.trim() === '') {
    return validationFailed([{ resource: 'Issue', code: 'missing_field', field: 'title' }]);
  }
  const newBody =
    'body' in body && (typeof body.body === 'string' || body.body === null) ? body.body : undefined;
  ctx.store.editIssue(
    issue,
    { ...(title !== undefined ? { title } : {}), ...(newBody !== undefined ? { body: newBody } : {}) },
    ctx.token.login,
  );
  if (state !== undefined) {
    ctx.store.setIssueState(issue, state, ctx.token.login, stringField(body, 'state_reason'));
  }
  return ok(issueJson(ctx.store, issue, ctx.urls));
}

function createIssue(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  const title = stringField(body, 'title');
  if (title === undefined || title.trim() === '') return missingField('Issue', 'title');
  const issue = ctx.store.createIssue({
    title,
    body: stringField(body, 'body') ?? null,
    author: ctx.token.login,
  });
  const labels = Array.isArray(body.labels) ? body.labels : [];
  for (const label of labels) {
    if (typeof label === 'string') ctx.store.labelIssue(issue, label, ctx.token.login);
  }
  return created(issueJson(ctx.store, issue, ctx.urls));
}

export const issueRoutes: readonly Route[] = [
  { method: 'GET', pattern: '/repos/:owner/:repo/issues', handle: listIssues },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/issues/:number',
    handle: (ctx) => {
      const issue = findIssue(ctx);
      return issue ? ok(singleIssueJson(ctx.store, issue, ctx.urls)) : notFound();
    },
  },
  { method: 'PATCH', pattern: '/repos/:owner/:repo/issues/:number', handle: updateIssue },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/issues/:number/events',
    handle: (ctx) => {
      const issue = findIssue(ctx);
      if (!issue) return notFound();
      const events = ctx.store.events.filter((e) => e.issueNumber === issue.number);
      return pagedReply(ctx, events, (event) => eventJson(ctx.store, event, ctx.urls));
    },
  },
  { method: 'POST', pattern: '/repos/:owner/:repo/issues', handle: createIssue },
];
