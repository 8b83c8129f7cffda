import type { CommentRecord } from './records.js';
import { created, missingField, notFound, objectBody, ok, type Reply, stringField } from './replies.js';
import { intParam, type Route, type RouteContext } from './router.js';
import { findIssue, pagedReply } from './routes-issues.js';
import { commentJson } from './serialize.js';
import type { Store } from './store.js';
import type { AuthorAssociation } from './types.js';

/** Shared by the REST route and the seeding API, so both leave the same trace on the issue. */
export function createComment(
  store: Store,
  issueNumber: number,
  author: string,
  body: string,
  authorAssociation?: AuthorAssociation,
): CommentRecord | undefined {
  const issue = store.issues.get(issueNumber);
  if (!issue) return undefined;
  const login = store.ensureUser(author).login;
  const id = store.ids.next('comment');
  const at = store.timestamp();
  const comment: CommentRecord = {
    id,
    nodeId: store.ids.node('IC', `comment:${id}`),
    issueNumber,
    author: login,
    authorAssociation: authorAssociation ?? store.association(login),
    body,
    createdAt: at,
    updatedAt: at,
  };
  store.comments.push(comment);
  // A new comment changes the issue's `comments` count and `updated_at`, as on GitHub.
  issue.updatedAt = at;
  return comment;
}

function addComment(ctx: RouteContext): Reply {
  const issue = findIssue(ctx);
  if (!issue) return notFound();
  const body = stringField(objectBody(ctx.body), 'body');
  if (body === undefined) return missingField('IssueComment', 'body');
  const comment = createComment(ctx.store, issue.number, ctx.token.login, body);
  return comment ? created(commentJson(ctx.store, comment, ctx.urls)) : notFound();
}

function editComment(ctx: RouteContext): Reply {
  const id = intParam(ctx, 'id');
  const comment = ctx.store.comments.find((c) => c.id === id);
  if (!comment) return notFound();
  const body = stringField(objectBody(ctx.body), 'body');
  if (body === undefined) return missingField('IssueComment', 'body');
  if (body !== comment.body) {
    comment.body = body;
    comment.updatedAt = ctx.store.timestamp();
  }
  return ok(commentJson(ctx.store, comment, ctx.urls));
}

export const commentRoutes: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/issues/:number/comments',
    handle: (ctx) => {
      const issue = findIssue(ctx);
      if (!issue) return notFound();
      const list = ctx.store.comments.filter((c) => c.issueNumber === issue.number);
      return pagedReply(ctx, list, (comment) => commentJson(ctx.store, comment, ctx.urls));
    },
  },
  { method: 'POST', pattern: '/repos/:owner/:repo/issues/:number/comments', handle: addComment },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/issues/comments/:id',
    handle: (ctx) => {
      const id = intParam(ctx, 'id');
      const comment = ctx.store.comments.find((c) => c.id === id);
      return comment ? ok(commentJson(ctx.store, comment, ctx.urls)) : notFound();
    },
  },
  { method: 'PATCH', pattern: '/repos/:owner/:repo/issues/comments/:id', handle: editComment },
];
