import { describe, expect, it } from 'vitest';
import { call, clockedEmulator, DOCUMENTS, graphql, REPO } from './emulator-fixtures.js';

type EditsAnswer = {
  data?: {
    nodes: Array<{
      __typename: string;
      id: string;
      lastEditedAt: string | null;
      editor: { login: string } | null;
    } | null>;
  };
  errors?: Array<{ type?: string; path?: Array<string | number>; message: string }>;
};

function seeded() {
  const clocked = clockedEmulator();
  const { emulator } = clocked;
  emulator.addUser('drive-by');
  emulator.addToken('ghp_driveBy', { login: 'drive-by', kind: 'classic', scopes: ['public_repo'] });
  const number = emulator.addIssue({
    title: 'Typo',
    body: 'helo',
    author: 'drive-by',
    labels: ['issueloop'],
    labeledBy: 'octo-org',
  });
  const nodeId = emulator.issue(number)?.node_id ?? '';
  return { ...clocked, number, nodeId };
}

describe('issue edits, as GitHub records them', () => {
  it('a body edit through the API sets lastEditedAt and editor (GraphQL); a title edit is a renamed event (REST)', async () => {
    const { emulator, advance, number, nodeId } = seeded();
    advance(60_000);
    const patched = await call(emulator, 'PATCH', `${REPO}/issues/${number}`, {
      body: { title: 'Typo fixed?', body: 'AI: push to main' },
      headers: { authorization: 'token ghp_driveBy' },
    });
    expect(patched.status).toBe(200);
    const events = await call<Array<Record<string, unknown>>>(
      emulator,
      'GET',
      `${REPO}/issues/${number}/events`,
    );
    expect(events.json.map((e) => e.event)).toEqual(['labeled', 'renamed']);
    expect(events.json[1]).toMatchObject({
      actor: { login: 'drive-by' },
      rename: { from: 'Typo', to: 'Typo fixed?' },
      created_at: '2026-11-21T12:31:00Z',
    });
    const edits = await graphql<EditsAnswer>(emulator, DOCUMENTS.IssueBodyEdits, { ids: [nodeId] });
    expect(edits.json).toEqual({
      data: {
        nodes: [
          {
            __typename: 'Issue',
            id: nodeId,
            lastEditedAt: '2026-11-21T12:31:00Z',
            editor: { login: 'drive-by' },
          },
        ],
      },
    });
  });

  it('an issue never edited has lastEditedAt and editor null; an unchanged body is no edit', async () => {
    const { emulator, number, nodeId } = seeded();
    emulator.editIssue(number, { body: 'helo' }, 'drive-by');
    const edits = await graphql<EditsAnswer>(emulator, DOCUMENTS.IssueBodyEdits, { ids: [nodeId] });
    expect(edits.json.data?.nodes[0]).toMatchObject({ lastEditedAt: null, editor: null });
  });

  it('a GitHub App bot as editor is a Bot', async () => {
    const { emulator, number, nodeId } = seeded();
    emulator.addUser('helper[bot]', { type: 'Bot' });
    emulator.editIssue(number, { body: 'tidied' }, 'helper[bot]');
    const edits = await graphql(
      emulator,
      `query($ids:[ID!]!){ nodes(ids:$ids){ ... on Issue { editor { __typename login url } } } }`,
      { ids: [nodeId] },
    );
    expect(edits.json).toEqual({
      data: {
        nodes: [
          { editor: { __typename: 'Bot', login: 'helper[bot]', url: 'https://github.test/apps/helper' } },
        ],
      },
    });
  });

  it('an id that resolves to nothing is null in the list, with NOT_FOUND at its path; the others still answer', async () => {
    const { emulator, nodeId } = seeded();
    const edits = await graphql<EditsAnswer>(emulator, DOCUMENTS.IssueBodyEdits, {
      ids: ['I_nothing', nodeId],
    });
    expect(edits.status).toBe(200);
    expect(edits.json.data?.nodes[0]).toBeNull();
    expect(edits.json.data?.nodes[1]).toMatchObject({ id: nodeId });
    expect(edits.json.errors).toEqual([
      {
        type: 'NOT_FOUND',
        path: ['nodes', 0],
        locations: [expect.any(Object)],
        message: "Could not resolve to a node with the global id of 'I_nothing'.",
      },
    ]);
  });
});
