import { readFileSync } from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { projectsSchema } from '../../src/emulators/github/index.js';
import { graphql } from './emulator-fixtures.js';
import { REPLY, RESOLVE, THREADS, withReviewedOrigin } from './review-fixtures.js';

const { reviewed } = withReviewedOrigin();

describe('review thread permissions', () => {
  it('needs public_repo (or repo) on a classic token to write, and write access to resolve', async () => {
    const { emulator, threads } = await reviewed();
    const thread = (await threads()).data.repository.pullRequest.reviewThreads.nodes[0]?.id;
    emulator.addToken('ghp_projects', { login: 'issueloop-bot', kind: 'classic', scopes: ['project'] });
    const scoped = await graphql(emulator, RESOLVE, { thread }, 'ghp_projects');
    expect(scoped.json).toMatchObject({
      errors: [
        {
          type: 'INSUFFICIENT_SCOPES',
          message: expect.stringContaining(
            "The 'resolveReviewThread' field requires one of the following scopes: ['public_repo']",
          ),
        },
      ],
    });
    expect(scoped.json).not.toHaveProperty('data');
    // Reading a public repository needs no scope.
    expect(await threads('ghp_projects')).not.toHaveProperty('errors');

    emulator.addToken('ghp_mallory', { login: 'mallory', kind: 'classic', scopes: ['public_repo'] });
    const forbidden = await graphql(emulator, RESOLVE, { thread }, 'ghp_mallory');
    expect(forbidden.json).toMatchObject({
      data: { resolveReviewThread: null },
      errors: [
        {
          type: 'FORBIDDEN',
          message: 'mallory does not have the correct permissions to execute `ResolveReviewThread`',
        },
      ],
    });
    // Anyone who can read a public repository can reply.
    const replied = await graphql(emulator, REPLY, { thread, body: 'Me too' }, 'ghp_mallory');
    expect(replied.json).not.toHaveProperty('errors');
    emulator.addToken('ghs_app', { login: 'issueloop[bot]', kind: 'installation' });
    const app = await graphql(emulator, RESOLVE, { thread }, 'ghs_app');
    expect(app.json).toMatchObject({ data: { resolveReviewThread: { thread: { isResolved: true } } } });
  });

  it('hides a private repository from a classic token without repo', async () => {
    const { emulator, threads } = await reviewed({ private: true });
    emulator.addToken('ghp_norepo', { login: 'issueloop-bot', kind: 'classic', scopes: ['project'] });
    expect(await threads('ghp_norepo')).toMatchObject({
      data: { repository: null },
      errors: [{ type: 'NOT_FOUND' }],
    });
    expect(await threads()).not.toHaveProperty('errors');
  });
});

describe('the documents', () => {
  it('validate against the emulator’s schema and GitHub’s', () => {
    const file = new URL('../../node_modules/@octokit/graphql-schema/schema.graphql', import.meta.url);
    const real = buildSchema(readFileSync(file, 'utf8'), { assumeValid: true, assumeValidSDL: true });
    for (const text of [THREADS, RESOLVE, REPLY]) {
      expect(validate(projectsSchema(), parse(text)).map((e) => e.message)).toEqual([]);
      expect(validate(real, parse(text)).map((e) => e.message)).toEqual([]);
    }
  });
});
