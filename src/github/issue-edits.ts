import type { GitHubClient } from './client.js';
import { gql } from './gql.js';

/**
 * Who last edited the body of each issue, for the trust gate. GraphQL is the only API that tells:
 * REST shows neither the editor nor the time. A title change is not a body edit (GitHub records it
 * as a `renamed` issue event, which the gate reads with the label events), so it is not asked here.
 *
 * Cost: one query per 100 issues, 1 point each (`nodes(ids:)` and scalar fields, no connection).
 */
export const ISSUE_BODY_EDITS = gql`
  query IssueBodyEdits($ids: [ID!]!) {
    nodes(ids: $ids) {
      __typename
      ... on Issue { id lastEditedAt editor { login } }
    }
  }
`;

/** GitHub resolves at most 100 ids per `nodes` lookup. */
export const MAX_IDS_PER_QUERY = 100;

export interface BodyEdit {
  at: string;
  /** `ghost` when the editor's account was deleted, as GitHub shows it. */
  by: string;
}

/** Per node id: the last body edit, `null` when never edited; ids GitHub did not resolve are absent. */
export type BodyEdits = Map<string, BodyEdit | null>;

interface Answer {
  nodes: Array<{
    __typename?: string;
    id?: string;
    lastEditedAt?: string | null;
    editor?: { login?: string } | null;
  } | null>;
}

/** A NOT_FOUND for one id (an issue moved or deleted since the listing) still answers the others. */
function partialAnswer(err: unknown): Answer | undefined {
  const failure = err as {
    name?: unknown;
    data?: Partial<Answer> | null;
    errors?: Array<{ type?: unknown }>;
  };
  if (failure?.name !== 'GraphqlResponseError' || !Array.isArray(failure.data?.nodes)) return undefined;
  const onlyMissing = (failure.errors ?? []).every((e) => e.type === 'NOT_FOUND');
  return onlyMissing ? { nodes: failure.data.nodes } : undefined;
}

export async function readBodyEdits(gh: GitHubClient, nodeIds: readonly string[]): Promise<BodyEdits> {
  const edits: BodyEdits = new Map();
  for (let start = 0; start < nodeIds.length; start += MAX_IDS_PER_QUERY) {
    const ids = nodeIds.slice(start, start + MAX_IDS_PER_QUERY);
    const answer = await gh.call(`read who last edited ${ids.length} issue(s)`, async () => {
      try {
        return await gh.graphql<Answer>(ISSUE_BODY_EDITS, { ids });
      } catch (err) {
        const partial = partialAnswer(err);
        if (partial) return partial;
        throw err;
      }
    });
    for (const node of answer.nodes) {
      if (node?.__typename !== 'Issue' || typeof node.id !== 'string') continue;
      const at = node.lastEditedAt;
      edits.set(node.id, typeof at === 'string' ? { at, by: node.editor?.login ?? 'ghost' } : null);
    }
  }
  return edits;
}
