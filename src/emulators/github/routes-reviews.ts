import { created, missingField, notFound, objectBody, ok, type Reply, stringField } from './replies.js';
import { reviewCommentJson, reviewJson } from './reviews-serialize.js';
import { addReply, reviewCommentsOf } from './reviews-state.js';
import { intParam, type Route, type RouteContext } from './router.js';
import { pagedReply } from './routes-issues.js';
import { findPull } from './routes-pulls.js';

/** `POST /pulls/{n}/comments/{id}/replies`: a reply by the token's user, in the comment's thread. */
function reply(ctx: RouteContext): Reply {
  const issue = findPull(ctx);
  const id = intParam(ctx, 'comment_id');
  const to = issue && reviewCommentsOf(ctx.store, issue.number).find((c) => c.id === id);
  if (!issue || !to) return notFound();
  const body = stringField(objectBody(ctx.body), 'body');
  if (body === undefined || body.trim() === '') return missingField('PullRequestReviewComment', 'body');
  const comment = addReply(ctx.store, issue, to, { author: ctx.token.login, body });
  return created(reviewCommentJson(ctx.store, comment, ctx.urls));
}

export const reviewRoutes: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/pulls/:number/reviews',
    handle: (ctx) => {
      const issue = findPull(ctx);
      if (!issue) return notFound();
      const list = ctx.store.lifecycle.reviews.filter((r) => r.pullNumber === issue.number);
      return pagedReply(ctx, list, (review) => reviewJson(ctx.store, review, ctx.urls));
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/pulls/:number/comments',
    handle: (ctx) => {
      const issue = findPull(ctx);
      if (!issue) return notFound();
      const list = reviewCommentsOf(ctx.store, issue.number);
      return pagedReply(ctx, list, (comment) => reviewCommentJson(ctx.store, comment, ctx.urls));
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/pulls/comments/:id',
    handle: (ctx) => {
      const id = intParam(ctx, 'id');
      const comment = ctx.store.lifecycle.reviewComments.find((c) => c.id === id);
      return comment ? ok(reviewCommentJson(ctx.store, comment, ctx.urls)) : notFound();
    },
  },
  {
    method: 'POST',
    pattern: '/repos/:owner/:repo/pulls/:number/comments/:comment_id/replies',
    handle: reply,
  },
];
