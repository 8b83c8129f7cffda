/**
 * Marks a GraphQL document. Every `gql` literal in src/ is validated against GitHub's published
 * schema by a test (test/github/graphql-documents.test.ts), so a query GitHub would reject fails CI.
 * Documents must be plain literals (no interpolation) for that test to read them.
 */
export function gql(strings: TemplateStringsArray): string {
  return strings.join('');
}
