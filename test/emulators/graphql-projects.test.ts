import { describe, expect, it } from 'vitest';
import { DOCUMENTS, graphql, octokit } from './emulator-fixtures.js';
import { board, column, type Option } from './project-board.js';

describe('Projects v2 queries', () => {
  it('resolves a project with its Status field and logs the operation', async () => {
    const { emulator, project, resolve } = board();
    const body = await resolve();
    expect(body.errors).toBeUndefined();
    const owner = body.data.repositoryOwner;
    expect(owner).toMatchObject({ __typename: 'Organization', login: 'octo-org' });
    expect(owner?.projectV2).toMatchObject({
      id: project.id,
      number: 7,
      title: 'Backlog',
      url: 'https://github.test/orgs/octo-org/projects/7',
      items: { totalCount: 0 },
      field: { __typename: 'ProjectV2SingleSelectField', name: 'Status' },
    });
    expect(project.id).toMatch(/^PVT_/);
    expect(owner?.projectV2?.field?.id).toMatch(/^PVTSSF_/);
    const options = owner?.projectV2?.field?.options ?? [];
    expect(options.map((o) => o.name)).toEqual(['Todo', 'In Progress', 'Done']);
    expect(options.every((o) => /^[0-9a-f]{8}$/.test(o.id))).toBe(true);
    expect(emulator.requests).toMatchObject([
      { method: 'POST', path: '/graphql', operationName: 'ResolveProject', charged: true },
    ]);
  });

  it('reports an unknown project number as NOT_FOUND with partial data, in GitHub’s shape', async () => {
    const { emulator } = board();
    const { json, status } = await graphql(emulator, DOCUMENTS.ResolveProject, {
      owner: 'octo-org',
      number: 99,
      field: 'Status',
    });
    expect(status).toBe(200);
    expect(json).toEqual({
      data: {
        repositoryOwner: {
          __typename: 'Organization',
          id: expect.any(String),
          login: 'octo-org',
          projectV2: null,
        },
      },
      errors: [
        {
          type: 'NOT_FOUND',
          path: ['repositoryOwner', 'projectV2'],
          locations: [{ line: 1, column: column(DOCUMENTS.ResolveProject, 'projectV2(') }],
          message: 'Could not resolve to a ProjectV2 with the number 99.',
        },
      ],
    });
  });

  it('resolves an unknown owner to null without an error, but user(login:) to NOT_FOUND', async () => {
    const { emulator } = board();
    const owner = await graphql(emulator, DOCUMENTS.Owner, { owner: 'ghost' });
    expect(owner.json).toEqual({ data: { repositoryOwner: null } });
    const user = await graphql(emulator, 'query { user(login: "ghost") { id } }');
    expect(user.json).toMatchObject({
      data: { user: null },
      errors: [{ type: 'NOT_FOUND', message: "Could not resolve to a User with the login of 'ghost'." }],
    });
  });

  it('answers Octokit’s graphql client, and hands out the same ids to identically seeded emulators', async () => {
    const one = board();
    const two = board();
    const ask = (b: ReturnType<typeof board>) =>
      octokit(b.emulator).graphql(DOCUMENTS.ResolveProject, {
        owner: 'octo-org',
        number: 7,
        field: 'Status',
      });
    const [a, b] = await Promise.all([ask(one), ask(two)]);
    expect(a).toMatchObject({ repositoryOwner: { projectV2: { title: 'Backlog' } } });
    expect(a).toEqual(b);
    await expect(
      octokit(one.emulator).graphql(DOCUMENTS.ResolveProject, {
        owner: 'octo-org',
        number: 8,
        field: 'Status',
      }),
    ).rejects.toMatchObject({ errors: [{ type: 'NOT_FOUND' }] });
  });

  it('searches an owner’s projects by title', async () => {
    const { emulator } = board();
    emulator.addProject({ title: 'Roadmap' });
    const found = await graphql<{
      data: { repositoryOwner: { projectsV2: { nodes: Array<{ number: number; title: string }> } } };
    }>(emulator, DOCUMENTS.FindProjects, { owner: 'octo-org', query: 'backlog' });
    expect(found.json.data.repositoryOwner.projectsV2.nodes).toEqual([
      expect.objectContaining({ number: 7, title: 'Backlog' }),
    ]);
  });

  it('answers a document that fails validation with 200, errors and locations, and no data', async () => {
    const { emulator } = board();
    const { status, json } = await graphql(emulator, 'query { repositoryOwner(login: "x") { statusField } }');
    expect(status).toBe(200);
    expect(json).toEqual({
      errors: [{ message: expect.stringContaining('statusField'), locations: [{ line: 1, column: 39 }] }],
    });
  });
});

describe('Projects v2 mutations', () => {
  it('adds an item idempotently and sets its status', async () => {
    const { emulator, project, issue, contentId, resolve } = board();
    const add = async () =>
      (
        await graphql<{ data: { addProjectV2ItemById: { item: { id: string } } } }>(
          emulator,
          DOCUMENTS.AddItem,
          {
            project: project.id,
            content: contentId,
          },
        )
      ).json.data.addProjectV2ItemById.item.id;
    const itemId = await add();
    expect(itemId).toMatch(/^PVTI_/);
    expect(await add()).toBe(itemId);

    const field = (await resolve()).data.repositoryOwner?.projectV2?.field;
    const inProgress = field?.options.find((o) => o.name === 'In Progress')?.id;
    const set = await graphql(emulator, DOCUMENTS.SetStatus, {
      project: project.id,
      item: itemId,
      field: field?.id,
      option: inProgress,
    });
    expect(set.json).toEqual({ data: { updateProjectV2ItemFieldValue: { projectV2Item: { id: itemId } } } });
    expect(emulator.project(7)?.items).toEqual([
      { itemId, contentId, issueNumber: issue, status: 'In Progress' },
    ]);
    expect((await resolve()).data.repositoryOwner?.projectV2?.items.totalCount).toBe(1);
  });

  it('regenerates every option id when the options are replaced, clearing statuses', async () => {
    const { emulator, project, contentId, resolve } = board();
    const before = (await resolve()).data.repositoryOwner?.projectV2?.field;
    const add = await graphql<{ data: { addProjectV2ItemById: { item: { id: string } } } }>(
      emulator,
      DOCUMENTS.AddItem,
      {
        project: project.id,
        content: contentId,
      },
    );
    const item = add.json.data.addProjectV2ItemById.item.id;
    const todo = before?.options[0]?.id;
    await graphql(emulator, DOCUMENTS.SetStatus, {
      project: project.id,
      item,
      field: before?.id,
      option: todo,
    });
    expect(emulator.project(7)?.items[0]?.status).toBe('Todo');

    const names = ['Todo', 'In Progress', 'In Review', 'Done'];
    const replaced = await graphql<{
      data: { updateProjectV2Field: { projectV2Field: { options: Option[] } } };
    }>(emulator, DOCUMENTS.SetStatusOptions, {
      field: before?.id,
      options: names.map((name) => ({ name, color: 'GRAY', description: '' })),
    });
    const after = replaced.json.data.updateProjectV2Field.projectV2Field.options;
    expect(after.map((o) => o.name)).toEqual(names);
    const oldIds = new Set(before?.options.map((o) => o.id));
    expect(after.filter((o) => oldIds.has(o.id))).toEqual([]);
    expect(emulator.project(7)?.items[0]?.status).toBeUndefined();
    expect(emulator.project(7)?.options.map((o) => o.name)).toEqual(names);

    const stale = await graphql(emulator, DOCUMENTS.SetStatus, {
      project: project.id,
      item,
      field: before?.id,
      option: todo,
    });
    expect(stale.json).toEqual({
      data: { updateProjectV2ItemFieldValue: null },
      errors: [
        {
          path: ['updateProjectV2ItemFieldValue'],
          locations: [{ line: 1, column: column(DOCUMENTS.SetStatus, 'updateProjectV2ItemFieldValue') }],
          message: 'The single select option Id does not belong to the field',
        },
      ],
    });
  });

  it('creates a project with the default Status options and the next number', async () => {
    const { emulator } = board();
    const owner = await graphql<{ data: { repositoryOwner: { id: string } } }>(emulator, DOCUMENTS.Owner, {
      owner: 'octo-org',
    });
    const created = await graphql<{
      data: { createProjectV2: { projectV2: { id: string; number: number; url: string } } };
    }>(emulator, DOCUMENTS.CreateProject, { owner: owner.json.data.repositoryOwner.id, title: 'issueloop' });
    const project = created.json.data.createProjectV2.projectV2;
    expect(project).toMatchObject({ number: 8, url: 'https://github.test/orgs/octo-org/projects/8' });
    expect(emulator.project(8)?.fields.map((f) => [f.name, f.options.map((o) => o.name)])).toEqual([
      ['Status', ['Todo', 'In Progress', 'Done']],
    ]);
    const bad = await graphql(emulator, DOCUMENTS.CreateProject, { owner: 'O_nope', title: 'x' });
    expect(bad.json).toMatchObject({
      errors: [{ type: 'NOT_FOUND', message: "Could not resolve to a node with the global id of 'O_nope'." }],
    });
  });
});
