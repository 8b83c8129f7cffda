import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLSchema } from 'graphql';

/** GitHub's published GraphQL schema (npm @octokit/graphql-schema). */
export function loadGitHubSchema(): GraphQLSchema {
  // The published SDL repeats a few fields; graphql 17 rejects that unless told to trust the SDL.
  const file = new URL('../../node_modules/@octokit/graphql-schema/schema.graphql', import.meta.url);
  return buildSchema(readFileSync(file, 'utf8'), { assumeValid: true, assumeValidSDL: true });
}
