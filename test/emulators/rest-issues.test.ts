import { describe, expect, it } from 'vitest';
import { BASE, call, clockedEmulator, octokit, REPO } from './emulator-fixtures.js';

function seed(count: number) {
  const clocked = clockedEmulator();
  for (let i = 0; i < count; i += 1) {
    clocked.emulator.addIssue({ title: `issue ${i + 1}`, author: 'maintainer', labels: ['issueloop'] });
    clocked.advance(1000);
  }
  return clocked;
}

describe('issue listing', () => {
  it('paginates 250 issues with GitHub link headers that Octokit follows', async () => {
    const { emulator } = seed(250);
    const all = await octokit(emulator).paginate(octokit(emulator).rest.issues.listForRepo, {
      owner: 'octo-org',
      repo: 'widgets',
      per_page: 100,
    });
    expect(all.map((i) => i.number)).toEqual(Array.from({ length: 250 }, (_, i) => 250 - i));
    expect(emulator.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${REPO}/issues?per_page=100 200`,
      `GET ${REPO}/issues?per_page=100&page=2 200`,
      `GET ${REPO}/issues?per_page=100&page=3 200`,
    ]);
    expect(emulator.chargedCount()).toBe(3);
  });

  it('links prev, next, last and first with absolute URLs in GitHub’s order', async () => {
    const { emulator } = seed(250);
    const first = await call(emulator, 'GET', `${REPO}/issues?labels=issueloop&per_page=100`);
    expect(first.headers.get('link')).toBe(
      `<${BASE}${REPO}/issues?labels=issueloop&per_page=100&page=2>; rel="next", ` +
        `<${BASE}${REPO}/issues?labels=issueloop&per_page=100&page=3>; rel="last"`,
    );
    const middle = await call(emulator, 'GET', `${REPO}/issues?page=2&per_page=100`);
    expect(middle.headers.get('link')).toBe(
      [
        `<${BASE}${REPO}/issues?per_page=100&page=1>; rel="prev"`,
        `<${BASE}${REPO}/issues?per_page=100&page=3>; rel="next"`,
        `<${BASE}${REPO}/issues?per_page=100&page=3>; rel="last"`,
        `<${BASE}${REPO}/issues?per_page=100&page=1>; rel="first"`,
      ].join(', '),
    );
    const last = await call<unknown[]>(emulator, 'GET', `${REPO}/issues?per_page=100&page=3`);
    expect(last.json).toHaveLength(50);
    expect(last.headers.get('link')).not.toContain('rel="next"');
    const single = await call(emulator, 'GET', `${REPO}/issues?per_page=100&labels=nothing`);
    expect(single.headers.get('link')).toBeNull();
  });

  it('defaults to 30 per page and caps per_page at 100', async () => {
    const { emulator } = seed(120);
    expect((await call<unknown[]>(emulator, 'GET', `${REPO}/issues`)).json).toHaveLength(30);
    expect((await call<unknown[]>(emulator, 'GET', `${REPO}/issues?per_page=500`)).json).toHaveLength(100);
  });

  it('filters labels with AND, case-insensitively, and honours state, sort and direction', async () => {
    const { emulator, advance } = clockedEmulator();
    const both = emulator.addIssue({ title: 'both', author: 'a', labels: ['bug', 'issueloop'] });
    advance(1000);
    const bugOnly = emulator.addIssue({ title: 'bug', author: 'a', labels: ['bug'] });
    advance(1000);
    const closed = emulator.addIssue({ title: 'closed', author: 'a', labels: ['bug', 'issueloop'] });
    await call(emulator, 'PATCH', `${REPO}/issues/${closed}`, { body: { state: 'closed' } });

    const numbers = async (query: string) =>
      (await call<Array<{ number: number }>>(emulator, 'GET', `${REPO}/issues?${query}`)).json.map(
        (i) => i.number,
      );
    expect(await numbers('labels=BUG,issueloop')).toEqual([both]);
    expect(await numbers('labels=bug')).toEqual([bugOnly, both]);
    expect(await numbers('labels=bug&state=all&direction=asc')).toEqual([both, bugOnly, closed]);
    expect(await numbers('state=closed')).toEqual([closed]);
    advance(1000);
    emulator.labelIssue(both, 'urgent', 'triager');
    expect(await numbers('sort=updated&state=all')).toEqual([both, closed, bugOnly]);
    expect((await call(emulator, 'GET', `${REPO}/issues?state=bogus`)).status).toBe(422);
  });

  it('lists pull requests among issues, marked with pull_request; the pulls list has no plain issues', async () => {
    const { emulator } = clockedEmulator();
    const issue = emulator.addIssue({ title: 'plain', author: 'a' });
    const created = await call<{ number: number }>(emulator, 'POST', `${REPO}/pulls`, {
      body: { title: 'fix', head: 'issueloop/1', base: 'main', body: `Closes #${issue}` },
    });
    const listed = await call<Array<{ number: number; pull_request?: { url: string; html_url: string } }>>(
      emulator,
      'GET',
      `${REPO}/issues`,
    );
    expect(listed.json.map((i) => [i.number, i.pull_request !== undefined])).toEqual([
      [created.json.number, true],
      [issue, false],
    ]);
    expect(listed.json[0]?.pull_request).toMatchObject({
      url: `${BASE}${REPO}/pulls/${created.json.number}`,
      html_url: `https://github.test/octo-org/widgets/pull/${created.json.number}`,
    });
    const pulls = await call<Array<{ number: number }>>(emulator, 'GET', `${REPO}/pulls`);
    expect(pulls.json.map((p) => p.number)).toEqual([created.json.number]);
  });

  it('returns the issue shape, and 404 for other repositories and unknown routes', async () => {
    const { emulator } = clockedEmulator();
    const n = emulator.addIssue({
      title: 't',
      body: 'b',
      author: 'alice',
      authorAssociation: 'CONTRIBUTOR',
      labels: ['x'],
    });
    const got = await octokit(emulator).rest.issues.get({
      owner: 'octo-org',
      repo: 'widgets',
      issue_number: n,
    });
    expect(got.data).toMatchObject({
      number: n,
      title: 't',
      body: 'b',
      state: 'open',
      user: { login: 'alice', type: 'User' },
      author_association: 'CONTRIBUTOR',
      labels: [{ name: 'x', color: 'ededed' }],
      created_at: '2026-11-21T12:30:00Z',
      html_url: `https://github.test/octo-org/widgets/issues/${n}`,
    });
    expect(got.data.node_id).toMatch(/^I_/);
    expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await call(emulator, 'GET', '/repos/octo-org/gadgets/issues')).status).toBe(404);
    expect((await call(emulator, 'GET', `${REPO}/issues/999`)).status).toBe(404);
    const unknown = await call(emulator, 'GET', `${REPO}/branches`);
    expect(unknown).toMatchObject({ status: 404, json: { message: 'Not Found' } });
  });

  it('records labeled events with the labeling actor', async () => {
    const { emulator } = clockedEmulator();
    const n = emulator.addIssue({
      title: 't',
      author: 'alice',
      labels: ['issueloop'],
      labeledBy: 'maintainer',
    });
    emulator.labelIssue(n, 'urgent', 'triager');
    await call(emulator, 'DELETE', `${REPO}/issues/${n}/labels/urgent`);
    const events = await call<Array<{ event: string; actor: { login: string }; label: { name: string } }>>(
      emulator,
      'GET',
      `${REPO}/issues/${n}/events`,
    );
    expect(events.json.map((e) => [e.event, e.actor.login, e.label.name])).toEqual([
      ['labeled', 'maintainer', 'issueloop'],
      ['labeled', 'triager', 'urgent'],
      ['unlabeled', 'issueloop-bot', 'urgent'],
    ]);
  });
});

describe('conditional requests', () => {
  it('answers a matching If-None-Match with 304: no body, same etag, not charged, limits unchanged', async () => {
    const { emulator } = seed(3);
    const first = await call(emulator, 'GET', `${REPO}/issues`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"[0-9a-f]{40}"$/);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4999');

    const again = await call(emulator, 'GET', `${REPO}/issues`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.json).toBeUndefined();
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('4999');
    expect(again.headers.get('x-ratelimit-used')).toBe('1');
    expect(emulator.requests.map((r) => [r.status, r.charged])).toEqual([
      [200, true],
      [304, false],
    ]);
  });

  it('answers 200 with a new etag once the data changes', async () => {
    const { emulator, advance } = seed(3);
    const etag = (await call(emulator, 'GET', `${REPO}/issues`)).headers.get('etag') ?? '';
    advance(1000);
    emulator.labelIssue(2, 'urgent', 'triager');
    const changed = await call(emulator, 'GET', `${REPO}/issues`, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(emulator.chargedCount()).toBe(2);
  });

  it('surfaces as Octokit’s 304 RequestError', async () => {
    const { emulator } = seed(1);
    const gh = octokit(emulator);
    const first = await gh.rest.issues.listForRepo({ owner: 'octo-org', repo: 'widgets' });
    await expect(
      gh.rest.issues.listForRepo({
        owner: 'octo-org',
        repo: 'widgets',
        headers: { 'if-none-match': first.headers.etag },
      }),
    ).rejects.toMatchObject({ status: 304 });
  });
});
