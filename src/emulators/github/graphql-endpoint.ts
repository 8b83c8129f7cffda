import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type GraphQLError,
  getOperationAST,
  parse,
  validate,
} from 'graphql';
import { type GraphqlContext, GraphqlFailure } from './graphql-failure.js';
import { checkScopes } from './graphql-scopes.js';
import { createRootValue } from './projects-resolvers.js';
import { projectsSchema } from './projects-schema.js';
import { objectBody, type Reply } from './replies.js';

interface GraphqlBody {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

function readBody(body: unknown): GraphqlBody | undefined {
  const object = objectBody(body);
  if (typeof object.query !== 'string') return undefined;
  return {
    query: object.query,
    variables: objectBody(object.variables),
    operationName: typeof object.operationName === 'string' ? object.operationName : undefined,
  };
}

function tryParse(query: string): DocumentNode | GraphQLError {
  try {
    return parse(query);
  } catch (error) {
    return error as GraphQLError;
  }
}

/** For the request log: the body's `operationName`, else the first named operation of the document. */
export function operationNameOf(body: unknown): string | undefined {
  const request = readBody(body);
  if (!request) return undefined;
  if (request.operationName) return request.operationName;
  const document = tryParse(request.query);
  if (!('kind' in document)) return undefined;
  for (const definition of document.definitions) {
    if (definition.kind === 'OperationDefinition' && definition.name) return definition.name.value;
  }
  return undefined;
}

export function graphqlQueryText(body: unknown): string {
  return readBody(body)?.query ?? '';
}

/** GitHub's error shape: `type` at the top level (when there is one), then path, locations, message. */
function formatError(error: GraphQLError): Record<string, unknown> {
  const failure = error.originalError instanceof GraphqlFailure ? error.originalError : undefined;
  return {
    ...(failure?.type ? { type: failure.type } : {}),
    ...(error.path ? { path: error.path } : {}),
    ...(error.locations
      ? { locations: error.locations.map((l) => ({ line: l.line, column: l.column })) }
      : {}),
    message: error.message,
  };
}

function staticErrors(errors: readonly GraphQLError[]): Reply {
  return { status: 200, body: { errors: errors.map(formatError) } };
}

/**
 * Runs one GraphQL request against the Projects and pull-request subset. Like GitHub, every outcome is HTTP 200:
 * documents that fail to parse or validate get `errors` without `data`, resolver failures get
 * partial `data` next to `errors`.
 */
export async function runGraphql(body: unknown, ctx: GraphqlContext): Promise<Reply> {
  const request = readBody(body);
  if (!request) {
    return {
      status: 200,
      body: { errors: [{ message: 'A query attribute must be specified and must be a string.' }] },
    };
  }
  const schema = projectsSchema();
  const document = tryParse(request.query);
  if (!('kind' in document)) return staticErrors([document]);
  const invalid = validate(schema, document);
  if (invalid.length > 0) return staticErrors(invalid);

  const operation = getOperationAST(document, request.operationName);
  if (operation) {
    const problem = checkScopes(schema, document, operation, ctx.token, ctx.store.repo.private);
    if (problem) {
      return { status: 200, body: { errors: [{ type: 'INSUFFICIENT_SCOPES', ...problem }] } };
    }
  }

  const result: ExecutionResult = await execute({
    schema,
    document,
    rootValue: createRootValue(ctx),
    contextValue: ctx,
    variableValues: request.variables,
    operationName: request.operationName ?? null,
  });
  const errors = result.errors?.map(formatError);
  if (result.data === undefined) return { status: 200, body: { errors } };
  return { status: 200, body: errors ? { data: result.data, errors } : { data: result.data } };
}
