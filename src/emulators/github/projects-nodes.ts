import { connection, type GraphqlContext, GraphqlFailure, requireProjectAccess } from './graphql-failure.js';
import { findProject, projectUrl } from './projects-state.js';
import { type NodeLinks, pullFields } from './pulls-nodes.js';
import type { FieldRecord, IssueRecord, ItemRecord, ProjectRecord, UserRecord } from './records.js';

/**
 * GraphQL objects over the store. graphql-js's default resolver reads plain properties and calls
 * function properties with the field's arguments, so each node is an object whose nested fields are
 * computed only when a query selects them; `__typename` lets abstract types resolve.
 */

interface PageArgs {
  first?: number | null;
  after?: string | null;
}

export function ownerNode(ctx: GraphqlContext, user: UserRecord) {
  return {
    __typename: user.type === 'Organization' ? 'Organization' : 'User',
    id: user.nodeId,
    login: user.login,
    url: `${ctx.html}/${user.login}`,
    projectV2: ({ number }: { number: number }) => {
      requireProjectAccess(ctx, user);
      const project = findProject(ctx.store, user.login, number);
      if (!project) {
        throw new GraphqlFailure(`Could not resolve to a ProjectV2 with the number ${number}.`, 'NOT_FOUND');
      }
      return projectNode(ctx, project);
    },
    projectsV2: (args: PageArgs & { query?: string | null }) => {
      requireProjectAccess(ctx, user);
      const owned = ctx.store.projects.filter((p) => p.owner.toLowerCase() === user.login.toLowerCase());
      const matching = owned.filter((p) => matchesSearch(p, args.query ?? ''));
      return connection(matching, args, 'projectsV2', (p) => projectNode(ctx, p));
    },
  };
}

/** GitHub's project search: every word must occur in the title; `is:open` / `is:closed` filter state. */
function matchesSearch(project: ProjectRecord, query: string): boolean {
  const title = project.title.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '')
    .every((word) => {
      if (word === 'is:open') return !project.closed;
      if (word === 'is:closed') return project.closed;
      return title.includes(word.replace(/^"|"$/g, ''));
    });
}

export function projectNode(ctx: GraphqlContext, project: ProjectRecord) {
  return {
    __typename: 'ProjectV2',
    id: project.id,
    number: project.number,
    title: project.title,
    url: projectUrl(ctx.store, project, ctx.html),
    closed: project.closed,
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
    items: (args: PageArgs) => connection(project.items, args, 'items', (i) => itemNode(ctx, project, i)),
    field: ({ name }: { name: string }) => {
      const field = project.fields.find((f) => f.name === name);
      return field ? fieldNode(ctx, project, field) : null;
    },
    fields: (args: PageArgs) => connection(project.fields, args, 'fields', (f) => fieldNode(ctx, project, f)),
  };
}

export function fieldNode(ctx: GraphqlContext, project: ProjectRecord, field: FieldRecord) {
  return {
    __typename: 'ProjectV2SingleSelectField',
    id: field.id,
    name: field.name,
    createdAt: field.createdAt,
    updatedAt: field.updatedAt,
    project: () => projectNode(ctx, project),
    options: ({ names }: { names?: string[] | null }) =>
      field.options
        .filter((o) => !names || names.includes(o.name))
        .map((o) => ({ id: o.id, name: o.name, color: o.color, description: o.description })),
  };
}

export function itemNode(ctx: GraphqlContext, project: ProjectRecord, item: ItemRecord) {
  const content = ctx.store.issueByNodeId(item.contentId);
  return {
    __typename: 'ProjectV2Item',
    id: item.id,
    type: content?.pull ? 'PULL_REQUEST' : 'ISSUE',
    isArchived: false,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    project: () => projectNode(ctx, project),
    content: () => (content ? contentNode(ctx, content) : null),
    fieldValueByName: ({ name }: { name: string }) => {
      const field = project.fields.find((f) => f.name === name);
      const option = field?.options.find((o) => o.id === item.values.get(field.id));
      if (!field || !option) return null;
      return {
        __typename: 'ProjectV2ItemFieldSingleSelectValue',
        name: option.name,
        optionId: option.id,
        field: () => fieldNode(ctx, project, field),
      };
    },
  };
}

/** A user, organization or GitHub App bot as an `Actor` (an editor, say). */
export function actorNode(ctx: GraphqlContext, user: UserRecord) {
  if (user.type !== 'Bot') return ownerNode(ctx, user);
  return {
    __typename: 'Bot',
    id: user.nodeId,
    login: user.login,
    url: `${ctx.html}/apps/${user.login.replace(/\[bot\]$/, '')}`,
  };
}

export function contentNode(ctx: GraphqlContext, issue: IssueRecord) {
  const { owner, repo } = ctx.store;
  const editor = issue.editor === undefined ? undefined : ctx.store.findUser(issue.editor);
  return {
    __typename: issue.pull ? 'PullRequest' : 'Issue',
    id: issue.nodeId,
    number: issue.number,
    title: issue.title,
    url: `${ctx.html}/${owner.login}/${repo.name}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
    state: issue.state === 'open' ? 'OPEN' : 'CLOSED',
    lastEditedAt: issue.lastEditedAt ?? null,
    editor: () => (editor ? actorNode(ctx, editor) : null),
    // A pull request's own fields (pulls-nodes.ts), its `state` (MERGED too) among them.
    ...(issue.pull ? pullFields(ctx, issue, nodeLinks(ctx)) : {}),
  };
}

/** What pulls-nodes.ts needs of this module's nodes. */
export function nodeLinks(ctx: GraphqlContext): NodeLinks {
  return {
    actor: (user) => actorNode(ctx, user),
    owner: (user) => ownerNode(ctx, user),
    content: (issue) => contentNode(ctx, issue),
  };
}
