import {
  canReadRepository,
  canResolveThreads,
  type GraphqlContext,
  GraphqlFailure,
  mutationForbidden,
  nodeNotFound,
} from './graphql-failure.js';
import { contentNode, nodeLinks, ownerNode } from './projects-nodes.js';
import { reviewCommentNode, threadNode } from './pulls-nodes.js';
import { addReply, type Thread, threadByNodeId } from './reviews-state.js';

interface Input<T> {
  input: T & { clientMutationId?: string | null };
}

export function repositoryNode(ctx: GraphqlContext) {
  const { owner, repo } = ctx.store;
  return {
    __typename: 'Repository',
    id: repo.nodeId,
    name: repo.name,
    nameWithOwner: `${owner.login}/${repo.name}`,
    url: `${ctx.html}/${owner.login}/${repo.name}`,
    owner: () => ownerNode(ctx, owner),
    pullRequest: ({ number }: { number: number }) => {
      const issue = ctx.store.issues.get(number);
      if (!issue?.pull) {
        throw new GraphqlFailure(
          `Could not resolve to a PullRequest with the number of ${number}.`,
          'NOT_FOUND',
        );
      }
      return contentNode(ctx, issue);
    },
  };
}

/** A thread the viewer can see, else GitHub's NOT_FOUND for its id. */
function visibleThread(ctx: GraphqlContext, id: string): Thread {
  const thread = threadByNodeId(ctx.store, id);
  if (!thread || !canReadRepository(ctx)) throw nodeNotFound(id);
  return thread;
}

/** Resolves or unresolves, for the PR's author and writers; the PR's `updated_at` moves. */
function setResolved(ctx: GraphqlContext, input: Input<{ threadId: string }>['input'], resolved: boolean) {
  const thread = visibleThread(ctx, input.threadId);
  const pull = ctx.store.issues.get(thread.root.pullNumber);
  if (!pull || !canResolveThreads(ctx, pull)) {
    throw mutationForbidden(ctx, resolved ? 'ResolveReviewThread' : 'UnresolveReviewThread');
  }
  if (resolved) thread.root.resolvedBy = ctx.store.ensureUser(ctx.token.login).login;
  else delete thread.root.resolvedBy;
  pull.updatedAt = ctx.store.timestamp();
  return {
    clientMutationId: input.clientMutationId ?? null,
    thread: threadNode(ctx, thread, nodeLinks(ctx)),
  };
}

/** The root fields of the pull-request part: `repository`, and the review-thread mutations. */
export function pullsRootValue(ctx: GraphqlContext) {
  const { store } = ctx;
  return {
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const same =
        owner.toLowerCase() === store.owner.login.toLowerCase() &&
        name.toLowerCase() === store.repo.name.toLowerCase();
      if (same && canReadRepository(ctx)) return repositoryNode(ctx);
      throw new GraphqlFailure(
        `Could not resolve to a Repository with the name '${owner}/${name}'.`,
        'NOT_FOUND',
      );
    },

    /** A draft becomes ready for review, for writers and the PR's author (a ready one stays ready). */
    markPullRequestReadyForReview: ({ input }: Input<{ pullRequestId: string }>) => {
      const pull = store.issueByNodeId(input.pullRequestId);
      if (!pull?.pull || !canReadRepository(ctx)) throw nodeNotFound(input.pullRequestId);
      if (!canResolveThreads(ctx, pull)) throw mutationForbidden(ctx, 'MarkPullRequestReadyForReview');
      if (pull.pull.draft) {
        pull.pull.draft = false;
        pull.updatedAt = store.timestamp();
      }
      return { clientMutationId: input.clientMutationId ?? null, pullRequest: contentNode(ctx, pull) };
    },
    resolveReviewThread: ({ input }: Input<{ threadId: string }>) => setResolved(ctx, input, true),
    unresolveReviewThread: ({ input }: Input<{ threadId: string }>) => setResolved(ctx, input, false),

    addPullRequestReviewThreadReply: ({
      input,
    }: Input<{ pullRequestReviewThreadId: string; body: string }>) => {
      const thread = visibleThread(ctx, input.pullRequestReviewThreadId);
      const pull = store.issues.get(thread.root.pullNumber);
      if (!pull) throw nodeNotFound(input.pullRequestReviewThreadId);
      if (input.body.trim() === '') throw new GraphqlFailure("Body can't be blank", 'UNPROCESSABLE');
      const comment = addReply(store, pull, thread.root, { author: ctx.token.login, body: input.body });
      return {
        clientMutationId: input.clientMutationId ?? null,
        comment: reviewCommentNode(ctx, comment, nodeLinks(ctx)),
      };
    },
  };
}
