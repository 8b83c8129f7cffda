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
import type { TokenRecord } from './records.js';

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

function firstProjectField(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
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
          if (!found && touchesProjects(node, typeInfo)) found = node;
        },
      }),
    );
    if (found) return found;
  }
  return undefined;
}

const scopeList = (scopes: readonly string[]) => `[${scopes.map((s) => `'${s}'`).join(', ')}]`;

/**
 * GitHub checks OAuth scopes before executing anything: a classic token needs `read:project` (or
 * `project`) to read boards and `project` to change them. Other token kinds carry permissions, not
 * scopes, and are judged while resolving.
 */
export function checkScopes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  token: TokenRecord,
): ScopeProblem | undefined {
  if (token.kind !== 'classic') return undefined;
  const write = operation.operation === 'mutation';
  const satisfied = write
    ? token.scopes.includes('project')
    : token.scopes.includes('project') || token.scopes.includes('read:project');
  if (satisfied) return undefined;
  const field = firstProjectField(schema, document, operation);
  if (!field) return undefined;
  const required = write ? ['project'] : ['read:project'];
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
