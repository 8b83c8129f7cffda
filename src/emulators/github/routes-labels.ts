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
import { findIssue, pagedReply } from './routes-issues.js';
import { issueLabelsJson, labelJson } from './serialize.js';

function createLabel(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  const name = stringField(body, 'name');
  if (name === undefined || name.trim() === '') return missingField('Label', 'name');
  if (ctx.store.findLabel(name)) {
    return validationFailed([{ resource: 'Label', code: 'already_exists', field: 'name' }]);
  }
  const color = stringField(body, 'color')?.replace(/^#/, '');
  const label = ctx.store.ensureLabel(name, color, stringField(body, 'description') ?? null);
  return created(labelJson(ctx.store, label, ctx.urls));
}

/** GitHub takes `{ labels: [...] }` or a bare array, of names or of `{ name }` objects. */
function requestedLabels(body: unknown): string[] | undefined {
  const list = Array.isArray(body) ? body : objectBody(body).labels;
  if (!Array.isArray(list)) return undefined;
  const names: string[] = [];
  for (const entry of list) {
    const name = typeof entry === 'string' ? entry : stringField(objectBody(entry), 'name');
    if (name === undefined || name.trim() === '') return undefined;
    names.push(name);
  }
  return names;
}

function addLabels(ctx: RouteContext): Reply {
  const issue = findIssue(ctx);
  if (!issue) return notFound();
  const names = requestedLabels(ctx.body);
  if (!names) return missingField('Label', 'labels');
  for (const name of names) ctx.store.labelIssue(issue, name, ctx.token.login);
  return ok(issueLabelsJson(ctx.store, issue, ctx.urls));
}

function removeLabel(ctx: RouteContext): Reply {
  const issue = findIssue(ctx);
  if (!issue) return notFound();
  if (!ctx.store.unlabelIssue(issue, ctx.params.name ?? '', ctx.token.login)) {
    return errorReply(404, 'Label does not exist');
  }
  return ok(issueLabelsJson(ctx.store, issue, ctx.urls));
}

export const labelRoutes: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/labels',
    handle: (ctx) => pagedReply(ctx, ctx.store.allLabels(), (label) => labelJson(ctx.store, label, ctx.urls)),
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/labels/:name',
    handle: (ctx) => {
      const label = ctx.store.findLabel(ctx.params.name ?? '');
      return label ? ok(labelJson(ctx.store, label, ctx.urls)) : notFound();
    },
  },
  { method: 'POST', pattern: '/repos/:owner/:repo/labels', handle: createLabel },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/issues/:number/labels',
    handle: (ctx) => {
      const issue = findIssue(ctx);
      return issue ? ok(issueLabelsJson(ctx.store, issue, ctx.urls)) : notFound();
    },
  },
  { method: 'POST', pattern: '/repos/:owner/:repo/issues/:number/labels', handle: addLabels },
  { method: 'DELETE', pattern: '/repos/:owner/:repo/issues/:number/labels/:name', handle: removeLabel },
];
