import { describe, expect, it } from 'vitest';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { REACTION_CONTENTS } from '../../src/emulators/github/routes-reactions.js';

const BASE = 'https://api.github.test';
const REPO = `${BASE}/repos/octo-org/widgets`;

function world() {
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => now });
  const issue = emulator.addIssue({ title: 't', author: 'octocat' });
  const tick = () => {
    now += 1_000;
  };
  const call = (path: string, init: RequestInit = {}) =>
    emulator.fetch(`${REPO}${path}`, {
      ...init,
      headers: { authorization: 'token ghp_emulator', 'content-type': 'application/json' },
    });
  return { emulator, issue, tick, call };
}

describe('the emulator: repository comments and reactions', () => {
  it('a reaction is created once per user and content (201, then 200 with the same one)', async () => {
    const { emulator, issue, call } = world();
    const id = emulator.addComment(issue, { author: 'octocat', body: 'hi' });
    const first = await call(`/issues/comments/${id}/reactions`, {
      method: 'POST',
      body: JSON.stringify({ content: '+1' }),
    });
    expect(first.status).toBe(201);
    const again = await call(`/issues/comments/${id}/reactions`, {
      method: 'POST',
      body: JSON.stringify({ content: '+1' }),
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: number }).id).toBe(((await first.json()) as { id: number }).id);
    expect(emulator.reactions(id)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    const listed = await call(`/issues/comments/${id}/reactions?content=%2B1`);
    expect(((await listed.json()) as Array<{ user: { login: string } }>).map((r) => r.user.login)).toEqual([
      'issueloop-bot',
    ]);
  });

  it('an unknown reaction is a validation failure', async () => {
    const { emulator, issue, call } = world();
    const id = emulator.addComment(issue, { author: 'octocat', body: 'hi' });
    expect(REACTION_CONTENTS).toContain('+1');
    const bad = await call(`/issues/comments/${id}/reactions`, {
      method: 'POST',
      body: JSON.stringify({ content: 'thumbsup' }),
    });
    expect(bad.status).toBe(422);
    expect(emulator.reactions(id)).toEqual([]);
  });

  it('the repository listing honours since and sort=updated, and answers 304 to its ETag', async () => {
    const { emulator, issue, tick, call } = world();
    const old = emulator.addComment(issue, { author: 'octocat', body: 'old' });
    tick();
    const since = new Date(Date.UTC(2026, 10, 21, 12, 0, 1)).toISOString().replace('.000', '');
    const fresh = emulator.addComment(issue, { author: 'octocat', body: 'new' });
    const page = await call(`/issues/comments?since=${since}&sort=updated&direction=asc`);
    expect(((await page.json()) as Array<{ id: number }>).map((c) => c.id)).toEqual([fresh]);
    const all = await call('/issues/comments?sort=updated&direction=asc');
    expect(((await all.json()) as Array<{ id: number }>).map((c) => c.id)).toEqual([old, fresh]);
    const etag = page.headers.get('etag') ?? '';
    const again = await emulator.fetch(`${REPO}/issues/comments?since=${since}&sort=updated&direction=asc`, {
      headers: { authorization: 'token ghp_emulator', 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
  });
});
