import type { CommentRecord, ReactionRecord } from './records.js';
import { created, notFound, objectBody, ok, type Reply, stringField, validationFailed } from './replies.js';
import { intParam, type Route, type RouteContext } from './router.js';
import { pagedReply } from './routes-issues.js';
import { commentJson, userOf } from './serialize.js';

/**
 * The repository's issue comments as one listing (`since`, `sort`, `direction`), and reactions on an
 * issue comment. A reaction is one per user and content: adding it again answers 200 with the first
 * one, as GitHub does; a reaction does not move the comment's `updated_at`.
 */
export const REACTION_CONTENTS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'];

function listRepoComments(ctx: RouteContext): Reply {
  const query = ctx.url.searchParams;
  const since = query.get('since');
  const key = query.get('sort') === 'updated' ? 'updatedAt' : 'createdAt';
  const sign = query.get('direction') === 'desc' ? -1 : 1;
  const list = ctx.store.comments
    .filter((c) => since === null || c.updatedAt >= since)
    .sort((a, b) => sign * (a[key].localeCompare(b[key]) || a.id - b.id));
  return pagedReply(ctx, list, (comment) => commentJson(ctx.store, comment, ctx.urls));
}

function findComment(ctx: RouteContext): CommentRecord | undefined {
  const id = intParam(ctx, 'id');
  return ctx.store.comments.find((c) => c.id === id);
}

function reactionJson(ctx: RouteContext, reaction: ReactionRecord) {
  return {
    id: reaction.id,
    node_id: ctx.store.ids.node('REA', `reaction:${reaction.id}`),
    user: userOf(ctx.store, reaction.user, ctx.urls),
    content: reaction.content,
    created_at: reaction.createdAt,
  };
}

function addReaction(ctx: RouteContext): Reply {
  const comment = findComment(ctx);
  if (!comment) return notFound();
  const content = stringField(objectBody(ctx.body), 'content');
  if (content === undefined || !REACTION_CONTENTS.includes(content)) {
    return validationFailed([{ resource: 'Reaction', code: 'invalid', field: 'content' }]);
  }
  const login = ctx.store.ensureUser(ctx.token.login).login;
  const known = ctx.store.reactions.find(
    (r) =>
      r.commentId === comment.id && r.content === content && r.user.toLowerCase() === login.toLowerCase(),
  );
  if (known) return ok(reactionJson(ctx, known));
  const reaction = {
    id: ctx.store.ids.next('reaction'),
    commentId: comment.id,
    user: login,
    content,
    createdAt: ctx.store.timestamp(),
  };
  ctx.store.reactions.push(reaction);
  return created(reactionJson(ctx, reaction));
}

function listReactions(ctx: RouteContext): Reply {
  const comment = findComment(ctx);
  if (!comment) return notFound();
  const content = ctx.url.searchParams.get('content');
  const list = ctx.store.reactions.filter(
    (r) => r.commentId === comment.id && (content === null || r.content === content),
  );
  return pagedReply(ctx, list, (reaction) => reactionJson(ctx, reaction));
}

/** Before the issue routes: `issues/comments` would otherwise be read as an issue number. */
export const reactionRoutes: readonly Route[] = [
  { method: 'GET', pattern: '/repos/:owner/:repo/issues/comments', handle: listRepoComments },
  { method: 'GET', pattern: '/repos/:owner/:repo/issues/comments/:id/reactions', handle: listReactions },
  { method: 'POST', pattern: '/repos/:owner/:repo/issues/comments/:id/reactions', handle: addReaction },
];
