import {
  canReadRepository,
  type GraphqlContext,
  GraphqlFailure,
  nodeNotFound,
  requireProjectAccess,
} from './graphql-failure.js';
import { contentNode, fieldNode, itemNode, nodeLinks, ownerNode, projectNode } from './projects-nodes.js';
import {
  addItem,
  createProject,
  fieldById,
  itemById,
  type OptionInput,
  projectById,
  replaceOptions,
} from './projects-state.js';
import { reviewCommentNode, threadNode } from './pulls-nodes.js';
import { pullsRootValue, repositoryNode } from './pulls-resolvers.js';
import { threadByNodeId } from './reviews-state.js';

interface Input<T> {
  input: T & { clientMutationId?: string | null };
}

const OPTION_MISMATCH = 'The single select option Id does not belong to the field';

/** The repository, its review threads and review comments, for `node(id:)`; undefined for any other id. */
function lookupPullNode(ctx: GraphqlContext, id: string): unknown {
  if (!canReadRepository(ctx)) return undefined;
  if (id === ctx.store.repo.nodeId) return repositoryNode(ctx);
  const thread = threadByNodeId(ctx.store, id);
  if (thread) return threadNode(ctx, thread, nodeLinks(ctx));
  const comment = ctx.store.lifecycle.reviewComments.find((c) => c.nodeId === id);
  return comment ? reviewCommentNode(ctx, comment, nodeLinks(ctx)) : undefined;
}

function lookupNode(ctx: GraphqlContext, id: string): unknown {
  const user = ctx.store.userByNodeId(id);
  if (user && user.type !== 'Bot') return ownerNode(ctx, user);
  const issue = ctx.store.issueByNodeId(id);
  if (issue) return contentNode(ctx, issue);
  const pullNode = lookupPullNode(ctx, id);
  if (pullNode) return pullNode;
  const project = ctx.store.projects.find((p) => p.id === id);
  const field = fieldById(ctx.store, id);
  const item = itemById(ctx.store, id);
  if (project || field || item) requireProjectAccess(ctx);
  if (project) return projectNode(ctx, project);
  if (field) return fieldNode(ctx, field.project, field.field);
  if (item) return itemNode(ctx, item.project, item.item);
  throw nodeNotFound(id);
}

/** Root fields of Query and Mutation; graphql-js passes the arguments and the context to each. */
export function createRootValue(ctx: GraphqlContext) {
  const { store } = ctx;
  const ownerOfType = (login: string, type: 'Organization' | 'User') => {
    const user = store.findUser(login);
    return user?.type === type ? ownerNode(ctx, user) : undefined;
  };
  return {
    ...pullsRootValue(ctx),
    node: ({ id }: { id: string }) => lookupNode(ctx, id),
    // Like GitHub: an id that resolves to nothing is null in the list, with a NOT_FOUND error at its path.
    nodes: ({ ids }: { ids: string[] }) =>
      ids.map((id) => {
        try {
          return lookupNode(ctx, id);
        } catch (error) {
          return error;
        }
      }),
    repositoryOwner: ({ login }: { login: string }) =>
      ownerOfType(login, 'Organization') ?? ownerOfType(login, 'User') ?? null,
    organization: ({ login }: { login: string }) => {
      const owner = ownerOfType(login, 'Organization');
      if (owner) return owner;
      throw new GraphqlFailure(
        `Could not resolve to an Organization with the login of '${login}'.`,
        'NOT_FOUND',
      );
    },
    user: ({ login }: { login: string }) => {
      const owner = ownerOfType(login, 'User');
      if (owner) return owner;
      throw new GraphqlFailure(`Could not resolve to a User with the login of '${login}'.`, 'NOT_FOUND');
    },
    // An installation token's viewer is its App's bot user (`<slug>[bot]`).
    viewer: () => ownerNode(ctx, store.ensureUser(ctx.token.login)),

    addProjectV2ItemById: ({ input }: Input<{ projectId: string; contentId: string }>) => {
      requireProjectAccess(ctx);
      const project = projectById(store, input.projectId);
      if (!project) throw nodeNotFound(input.projectId);
      const item = addItem(store, project, input.contentId);
      if (!item) throw nodeNotFound(input.contentId);
      return { clientMutationId: input.clientMutationId ?? null, item: itemNode(ctx, project, item) };
    },

    updateProjectV2ItemFieldValue: ({
      input,
    }: Input<{
      projectId: string;
      itemId: string;
      fieldId: string;
      value: { singleSelectOptionId?: string | null };
    }>) => {
      requireProjectAccess(ctx);
      const project = projectById(store, input.projectId);
      if (!project) throw nodeNotFound(input.projectId);
      const item = project.items.find((i) => i.id === input.itemId);
      if (!item) throw nodeNotFound(input.itemId);
      const field = project.fields.find((f) => f.id === input.fieldId);
      if (!field) throw nodeNotFound(input.fieldId);
      const optionId = input.value.singleSelectOptionId;
      if (!optionId || !field.options.some((o) => o.id === optionId))
        throw new GraphqlFailure(OPTION_MISMATCH);
      item.values.set(field.id, optionId);
      item.updatedAt = store.timestamp();
      project.updatedAt = item.updatedAt;
      return {
        clientMutationId: input.clientMutationId ?? null,
        projectV2Item: itemNode(ctx, project, item),
      };
    },

    createProjectV2: ({ input }: Input<{ ownerId: string; title: string }>) => {
      requireProjectAccess(ctx);
      const owner = store.userByNodeId(input.ownerId);
      if (!owner || owner.type === 'Bot') throw nodeNotFound(input.ownerId);
      const project = createProject(store, { owner: owner.login, title: input.title });
      return { clientMutationId: input.clientMutationId ?? null, projectV2: projectNode(ctx, project) };
    },

    updateProjectV2Field: ({
      input,
    }: Input<{ fieldId: string; name?: string | null; singleSelectOptions?: OptionInput[] | null }>) => {
      requireProjectAccess(ctx);
      const found = fieldById(store, input.fieldId);
      if (!found) throw nodeNotFound(input.fieldId);
      const { project, field } = found;
      if (input.name) field.name = input.name;
      if (input.singleSelectOptions) replaceOptions(store, project, field, input.singleSelectOptions);
      return {
        clientMutationId: input.clientMutationId ?? null,
        projectV2Field: fieldNode(ctx, project, field),
      };
    },
  };
}
