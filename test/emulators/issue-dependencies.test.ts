import { describe, expect, it } from 'vitest';
import { call, clockedEmulator, REPO } from './emulator-fixtures.js';

interface Summary {
  blocked_by: number;
  blocking: number;
  total_blocked_by: number;
  total_blocking: number;
}
type Listed = { number: number; state: string; issue_dependencies_summary: Summary };

function seeded() {
  const { emulator } = clockedEmulator();
  const add = (title: string) => emulator.addIssue({ title, author: 'maintainer', labels: ['issueloop'] });
  const blocked = add('blocked');
  const first = add('first blocker');
  const second = add('second blocker');
  emulator.blockIssue(blocked, first);
  emulator.blockIssue(blocked, second);
  return { emulator, blocked, first, second };
}

describe('GitHub issue dependencies in the emulator', () => {
  it('lists the issues one is blocked by, with their state, as GitHub’s blocked_by endpoint does', async () => {
    const { emulator, blocked, first, second } = seeded();
    await call(emulator, 'PATCH', `${REPO}/issues/${first}`, { body: { state: 'closed' } });
    const answer = await call<Listed[]>(emulator, 'GET', `${REPO}/issues/${blocked}/dependencies/blocked_by`);
    expect(answer.status).toBe(200);
    expect(answer.json.map((i) => [i.number, i.state])).toEqual([
      [first, 'closed'],
      [second, 'open'],
    ]);
    const none = await call<Listed[]>(emulator, 'GET', `${REPO}/issues/${first}/dependencies/blocked_by`);
    expect(none.json).toEqual([]);
    expect((await call(emulator, 'GET', `${REPO}/issues/999/dependencies/blocked_by`)).status).toBe(404);
  });

  it('counts open blockers in the listing’s issue_dependencies_summary, which changes its ETag as one closes', async () => {
    const { emulator, blocked, first, second } = seeded();
    const list = () => call<Listed[]>(emulator, 'GET', `${REPO}/issues?labels=issueloop&state=open`);
    const before = await list();
    const summary = (answer: typeof before, n: number) =>
      answer.json.find((i) => i.number === n)?.issue_dependencies_summary;
    expect(summary(before, blocked)).toEqual({
      blocked_by: 2,
      blocking: 0,
      total_blocked_by: 2,
      total_blocking: 0,
    });
    expect(summary(before, first)).toEqual({
      blocked_by: 0,
      blocking: 1,
      total_blocked_by: 0,
      total_blocking: 1,
    });
    const etag = before.headers.get('etag') ?? '';
    expect(
      (
        await call(emulator, 'GET', `${REPO}/issues?labels=issueloop&state=open`, {
          headers: { 'if-none-match': etag },
        })
      ).status,
    ).toBe(304);

    await call(emulator, 'PATCH', `${REPO}/issues/${second}`, { body: { state: 'closed' } });
    const after = await call<Listed[]>(emulator, 'GET', `${REPO}/issues?labels=issueloop&state=open`, {
      headers: { 'if-none-match': etag },
    });
    expect(after.status).toBe(200);
    expect(summary(after, blocked)).toEqual({
      blocked_by: 1,
      blocking: 0,
      total_blocked_by: 2,
      total_blocking: 0,
    });
  });

  it('refuses an issue blocking itself when seeded', () => {
    const { emulator, blocked } = seeded();
    expect(() => emulator.blockIssue(blocked, blocked)).toThrow(`#${blocked} cannot block itself`);
  });
});
