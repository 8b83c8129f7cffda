import {
  canReadRepository,
  canResolveThreads,
  connection,
  type GraphqlContext,
  type PageArgs,
} from './graphql-failure.js';
import { mergeability } from './pull-merge.js';
import { pullShas, requirePull } from './pull-refs.js';
import type { IssueRecord, ReviewCommentRecord, ReviewRecord, UserRecord } from './records.js';
import { isOutdated, reviewDecision, type Thread, threadNodeId, threadsOf } from './reviews-state.js';

/**
 * GraphQL objects of pull requests, in the style of projects-nodes.ts: plain objects whose costly
 * fields (git, checks) are functions, so they are computed only when a query selects them.
 */

/**
 * The nodes of projects-nodes.ts a pull request leads to (its authors, its own content node),
 * handed in by the caller so that the two modules do not import each other.
 */
export interface NodeLinks {
  actor(user: UserRecord): unknown;
  owner(user: UserRecord): unknown;
  content(issue: IssueRecord): unknown;
}

/** The fields a PullRequest has beyond those a project item's content shows; `state` says MERGED once merged. */
export function pullFields(ctx: GraphqlContext, issue: IssueRecord, links: NodeLinks) {
  const pull = requirePull(issue);
  const { store } = ctx;
  return {
    state: pull.merged ? 'MERGED' : issue.state === 'open' ? 'OPEN' : 'CLOSED',
    body: issue.body ?? '',
    closed: issue.state === 'closed',
    createdAt: issue.createdAt,
    // After the head is read: a head seen to have moved moves `updatedAt`.
    updatedAt: () => {
      pullShas(store, issue);
      return issue.updatedAt;
    },
    merged: pull.merged !== undefined,
    mergedAt: pull.merged?.at ?? null,
    mergedBy: () => (pull.merged ? links.actor(store.ensureUser(pull.merged.by)) : null),
    mergeable: () => {
      const { mergeable } = mergeability(store, issue);
      if (mergeable === null) return 'UNKNOWN';
      return mergeable ? 'MERGEABLE' : 'CONFLICTING';
    },
    isDraft: pull.draft,
    headRefName: pull.headRef,
    headRefOid: () => pullShas(store, issue).head,
    baseRefName: pull.baseRef,
    baseRefOid: () => pullShas(store, issue).base,
    reviewDecision: () => reviewDecision(store, issue.number),
    reviewThreads: (args: PageArgs) =>
      connection(threadsOf(store, issue.number), args, 'reviewThreads', (t) => threadNode(ctx, t, links)),
    /** Submitted reviews, oldest first; `states` filters them as GitHub's argument does. */
    reviews: (args: PageArgs & { states?: string[] | null }) => {
      const reviews = store.lifecycle.reviews.filter(
        (r) => r.pullNumber === issue.number && (!args.states || args.states.includes(r.state)),
      );
      return connection(reviews, args, 'reviews', (r) => reviewNode(ctx, r, links));
    },
  };
}

export function reviewNode(ctx: GraphqlContext, review: ReviewRecord, links: NodeLinks) {
  const { store } = ctx;
  return {
    __typename: 'PullRequestReview',
    id: review.nodeId,
    databaseId: review.id,
    body: review.body,
    author: () => links.actor(store.ensureUser(review.author)),
    authorAssociation: review.authorAssociation,
    state: review.state,
    submittedAt: review.submittedAt,
    pullRequest: () => {
      const issue = store.issues.get(review.pullNumber);
      return issue ? links.content(issue) : null;
    },
  };
}

export function reviewCommentNode(ctx: GraphqlContext, comment: ReviewCommentRecord, links: NodeLinks) {
  const { store } = ctx;
  const issue = store.issues.get(comment.pullNumber);
  const root = store.lifecycle.reviewComments.find((c) => c.id === (comment.inReplyTo ?? comment.id));
  const outdated = () => root !== undefined && isOutdated(store, root);
  return {
    __typename: 'PullRequestReviewComment',
    id: comment.nodeId,
    databaseId: comment.id,
    body: comment.body,
    author: () => links.actor(store.ensureUser(comment.author)),
    authorAssociation: comment.authorAssociation,
    diffHunk: comment.diffHunk,
    path: comment.path,
    line: () => (outdated() ? null : comment.line),
    originalLine: comment.line,
    outdated,
    createdAt: comment.createdAt,
    updatedAt: comment.updatedAt,
    url: `${ctx.html}/${store.owner.login}/${store.repo.name}/pull/${comment.pullNumber}#discussion_r${comment.id}`,
    replyTo: () => (comment.inReplyTo !== undefined && root ? reviewCommentNode(ctx, root, links) : null),
    pullRequest: () => (issue ? links.content(issue) : null),
  };
}

export function threadNode(ctx: GraphqlContext, thread: Thread, links: NodeLinks) {
  const { store } = ctx;
  const { root } = thread;
  const issue = store.issues.get(root.pullNumber);
  const resolved = root.resolvedBy !== undefined;
  const mayResolve = issue !== undefined && canResolveThreads(ctx, issue);
  const outdated = () => isOutdated(store, root);
  return {
    __typename: 'PullRequestReviewThread',
    id: threadNodeId(store, root),
    isResolved: resolved,
    isCollapsed: resolved,
    isOutdated: outdated,
    path: root.path,
    line: () => (outdated() ? null : root.line),
    originalLine: root.line,
    diffSide: root.side,
    resolvedBy: () => {
      const user = root.resolvedBy === undefined ? undefined : store.findUser(root.resolvedBy);
      return user && user.type !== 'Bot' ? links.owner(user) : null;
    },
    viewerCanReply: canReadRepository(ctx),
    viewerCanResolve: mayResolve && !resolved,
    viewerCanUnresolve: mayResolve && resolved,
    pullRequest: () => (issue ? links.content(issue) : null),
    comments: (args: PageArgs) =>
      connection(thread.comments, args, 'comments', (c) => reviewCommentNode(ctx, c, links)),
  };
}
