import { afterEach, describe, expect, it } from 'vitest';
import type { ListeningEmulator } from '../../src/emulators/github/index.js';
import { clockedEmulator, DOCUMENTS, REPO } from './emulator-fixtures.js';

const open: ListeningEmulator[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

describe('listen()', () => {
  it('serves the same state over loopback HTTP, with links on the listener’s own URL', async () => {
    const { emulator } = clockedEmulator();
    for (let i = 0; i < 3; i += 1) emulator.addIssue({ title: `t${i}`, author: 'alice' });
    const server = await emulator.listen();
    open.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const headers = { authorization: 'token ghp_emulator', host: 'api.github.com' };
    const page = await fetch(`${server.url}${REPO}/issues?per_page=2`, { headers });
    expect(page.status).toBe(200);
    expect(((await page.json()) as unknown[]).length).toBe(2);
    expect(page.headers.get('link')).toBe(
      `<${server.url}${REPO}/issues?per_page=2&page=2>; rel="next", <${server.url}${REPO}/issues?per_page=2&page=2>; rel="last"`,
    );

    const etag = page.headers.get('etag') ?? '';
    const cached = await fetch(`${server.url}${REPO}/issues?per_page=2`, {
      headers: { ...headers, 'if-none-match': etag },
    });
    expect(cached.status).toBe(304);

    const gql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: DOCUMENTS.Owner, variables: { owner: 'octo-org' } }),
    });
    expect(await gql.json()).toMatchObject({ data: { repositoryOwner: { __typename: 'Organization' } } });
    expect(emulator.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${REPO}/issues?per_page=2 200`,
      `GET ${REPO}/issues?per_page=2 304`,
      'POST /graphql 200',
    ]);
  });

  it('keeps a base path prefix and stops answering once closed', async () => {
    const { emulator } = clockedEmulator({ baseUrl: 'https://ghe.test/api/v3' });
    const server = await emulator.listen();
    expect(server.url).toMatch(/\/api\/v3$/);
    const answer = await fetch(`${server.url}${REPO}`, { headers: { authorization: 'token ghp_emulator' } });
    expect(await answer.json()).toMatchObject({ url: `${server.url}${REPO}` });
    await server.close();
    await expect(fetch(`${server.url}${REPO}`)).rejects.toThrow();
  });
});
