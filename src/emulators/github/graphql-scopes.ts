import {
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  getNamedType,
  type OperationDefinitionNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { hasScopes, type TokenRecord } from './records.js';

export interface ScopeProblem {
  message: string;
  locations: Array<{ line: number; column: number }>;
}

function touchesProjects(node: FieldNode, typeInfo: TypeInfo): boolean {
  const name = node.name.value;
  if (name.startsWith('__')) return false;
  if (/projectV2|projectsV2|ProjectV2/.test(name)) return true;
  const returned = typeInfo.getFieldDef()?.type;
  if (returned && getNamedType(returned).name.startsWith('ProjectV2')) return true;
  const parent = typeInfo.getParentType()?.name ?? '';
  return parent.startsWith('ProjectV2') && parent !== 'ProjectV2Owner';
}

/** The mutations that write to the repository's pull requests. */
const REPO_WRITES = new Set([
  'resolveReviewThread',
  'unresolveReviewThread',
  'addPullRequestReviewThreadReply',
]);

function writesRepository(node: FieldNode, typeInfo: TypeInfo): boolean {
  return typeInfo.getParentType()?.name === 'Mutation' && REPO_WRITES.has(node.name.value);
}

function firstField(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  wanted: (node: FieldNode, typeInfo: TypeInfo) => boolean,
) {
  const typeInfo = new TypeInfo(schema);
  let found: FieldNode | undefined;
  // The operation first, then its fragments, so the field GitHub names is the first one a reader sees.
  const roots = [operation, ...document.definitions.filter((d) => d.kind === 'FragmentDefinition')];
  for (const root of roots) {
    visit(
      root,
      visitWithTypeInfo(typeInfo, {
        Field(node) {
          if (!found && wanted(node, typeInfo)) found = node;
        },
      }),
    );
    if (found) return found;
  }
  return undefined;
}

const scopeList = (scopes: readonly string[]) => `[${scopes.map((s) => `'${s}'`).join(', ')}]`;

function problem(field: FieldNode, required: string[], token: TokenRecord): ScopeProblem {
  const location = field.loc
    ? [{ line: field.loc.startToken.line, column: field.loc.startToken.column }]
    : [];
  return {
    locations: location,
    message:
      'Your token has not been granted the required scopes to execute this query. ' +
      `The '${field.name.value}' field requires one of the following scopes: ${scopeList(required)}, ` +
      `but your token has only been granted the: ${scopeList(token.scopes)} scopes. ` +
      "Please modify your token's scopes at: https://github.com/settings/tokens.",
  };
}

/**
 * GitHub checks OAuth scopes before executing anything: a classic token needs `read:project` (or
 * `project`; an OAuth token alike) to read boards and `project` to change them, and `public_repo` (or `repo`; only
 * `repo` for a private repository) to write to pull requests. Reading a private repository without
 * `repo` is not refused here: the repository is then NOT_FOUND, as on GitHub. Other token kinds
 * carry permissions, not scopes, and are judged while resolving.
 */
export function checkScopes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  token: TokenRecord,
  repoPrivate: boolean,
): ScopeProblem | undefined {
  if (!hasScopes(token)) return undefined;
  const write = operation.operation === 'mutation';
  const projects = write
    ? token.scopes.includes('project')
    : token.scopes.includes('project') || token.scopes.includes('read:project');
  const projectField = projects ? undefined : firstField(schema, document, operation, touchesProjects);
  if (projectField) return problem(projectField, write ? ['project'] : ['read:project'], token);
  const repo = token.scopes.includes('repo') || (!repoPrivate && token.scopes.includes('public_repo'));
  const repoField = repo || !write ? undefined : firstField(schema, document, operation, writesRepository);
  return repoField ? problem(repoField, repoPrivate ? ['repo'] : ['public_repo'], token) : undefined;
}
