import { describe, expect, it } from 'vitest';
import { DOCUMENTS, graphql } from './emulator-fixtures.js';
import { board, column } from './project-board.js';

describe('Projects v2 token rules', () => {
  it('refuses project data to installation tokens with FORBIDDEN', async () => {
    const { emulator } = board();
    emulator.addToken('ghs_actions', { login: 'github-actions[bot]', kind: 'installation' });
    const { json } = await graphql(
      emulator,
      DOCUMENTS.ResolveProject,
      { owner: 'octo-org', number: 7, field: 'Status' },
      'ghs_actions',
    );
    expect(json).toMatchObject({
      data: { repositoryOwner: { login: 'octo-org', projectV2: null } },
      errors: [
        {
          type: 'FORBIDDEN',
          path: ['repositoryOwner', 'projectV2'],
          message: 'Resource not accessible by integration',
        },
      ],
    });
    const owner = await graphql(emulator, DOCUMENTS.Owner, { owner: 'octo-org' }, 'ghs_actions');
    expect(owner.json).not.toHaveProperty('errors');
  });

  it('refuses classic tokens without the project scopes before executing anything', async () => {
    const { emulator, project, contentId } = board();
    emulator.addToken('ghp_repoonly', { login: 'issueloop-bot', kind: 'classic', scopes: ['repo'] });
    emulator.addToken('ghp_readonly', {
      login: 'issueloop-bot',
      kind: 'classic',
      scopes: ['repo', 'read:project'],
    });
    const vars = { owner: 'octo-org', number: 7, field: 'Status' };
    const query = await graphql(emulator, DOCUMENTS.ResolveProject, vars, 'ghp_repoonly');
    expect(query.json).toEqual({
      errors: [
        {
          type: 'INSUFFICIENT_SCOPES',
          locations: [{ line: 1, column: column(DOCUMENTS.ResolveProject, 'projectV2(') }],
          message:
            "Your token has not been granted the required scopes to execute this query. The 'projectV2' field requires one of the following scopes: ['read:project'], but your token has only been granted the: ['repo'] scopes. Please modify your token's scopes at: https://github.com/settings/tokens.",
        },
      ],
    });
    expect((await graphql(emulator, DOCUMENTS.ResolveProject, vars, 'ghp_readonly')).json).not.toHaveProperty(
      'errors',
    );
    const write = await graphql(
      emulator,
      DOCUMENTS.AddItem,
      { project: project.id, content: contentId },
      'ghp_readonly',
    );
    expect(write.json).toMatchObject({
      errors: [
        {
          type: 'INSUFFICIENT_SCOPES',
          message: expect.stringContaining(
            "The 'addProjectV2ItemById' field requires one of the following scopes: ['project']",
          ),
        },
      ],
    });
    expect(emulator.project(7)?.items).toEqual([]);
    expect(
      (await graphql(emulator, DOCUMENTS.Owner, { owner: 'octo-org' }, 'ghp_repoonly')).json,
    ).not.toHaveProperty('errors');
  });
});
