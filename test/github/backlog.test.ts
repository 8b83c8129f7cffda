import { afterEach, describe, expect, it } from 'vitest';
import { createTempStateDirs } from '../claims/temp-state-dirs.js';
import { emulated } from './emulated.js';

const dirs = createTempStateDirs();
afterEach(() => dirs.cleanup());

function seed(
  emulator: Awaited<ReturnType<typeof emulated>>['emulator'],
  count: number,
  label = 'issueloop',
): void {
  for (let i = 0; i < count; i += 1) {
    emulator.addIssue({
      title: `issue ${i}`,
      body: `body ${i}`,
      author: 'maintainer',
      authorAssociation: 'MEMBER',
      labels: [label],
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    });
  }
}

describe('backlog', () => {
  it('lists every page with conditional requests; an unchanged backlog costs nothing the next round', async () => {
    const e = await emulated(await dirs.make());
    seed(e.emulator, 250);
    const first = await e.adapter.listBacklog();
    expect(first.issues).toHaveLength(250);
    expect(first.pages).toBe(3);
    expect(e.client.metrics).toMatchObject({ charged: 3, uncharged: 0 });
    const sent = e.emulator.requests.map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(sent[0]).toBe(
      'GET /repos/octo-org/widgets/issues?labels=issueloop&state=open&sort=created&direction=asc&per_page=100 200',
    );
    expect(sent).toHaveLength(3);
    await e.adapter.flush();

    // A new process on the same state directory: the ETags come from the file.
    const again = await e.reopen();
    e.emulator.resetRequests();
    const second = await again.listBacklog();
    expect(second.issues.map((i) => i.number)).toEqual(first.issues.map((i) => i.number));
    expect(second.notModified).toBe(3);
    expect(e.emulator.requests.every((r) => r.status === 304 && !r.charged)).toBe(true);
    expect(e.emulator.requests.every((r) => r.requestHeaders['if-none-match'] !== undefined)).toBe(true);
    expect(again.client.metrics).toMatchObject({ charged: 0, uncharged: 3 });
  });

  it('a changed page is fetched again, with the new issue in it', async () => {
    const e = await emulated(await dirs.make());
    seed(e.emulator, 5);
    await e.adapter.listBacklog();
    const n = e.emulator.addIssue({
      title: 'new',
      author: 'maintainer',
      authorAssociation: 'OWNER',
      labels: ['issueloop'],
    });
    e.emulator.resetRequests();
    const next = await e.adapter.listBacklog();
    expect(next.issues.map((i) => i.number)).toContain(n);
    expect(e.emulator.requests.map((r) => r.status)).toEqual([200]);
  });

  it('drops pull requests and excluded labels, and says why', async () => {
    const e = await emulated(await dirs.make());
    const kept = e.emulator.addIssue({
      title: 'a',
      author: 'm',
      authorAssociation: 'OWNER',
      labels: ['issueloop'],
    });
    const human = e.emulator.addIssue({
      title: 'b',
      author: 'm',
      authorAssociation: 'OWNER',
      labels: ['issueloop', 'issueloop:needs-human'],
    });
    const wontfix = e.emulator.addIssue({
      title: 'c',
      author: 'm',
      authorAssociation: 'OWNER',
      labels: ['issueloop', 'WontFix'],
    });
    const other = e.emulator.addIssue({
      title: 'd',
      author: 'm',
      authorAssociation: 'OWNER',
      labels: ['bug'],
    });
    const backlog = await e.adapter.listBacklog();
    expect(backlog.issues.map((i) => i.number)).toEqual([kept]);
    expect(backlog.skipped).toEqual([
      { number: human, reason: 'label issueloop:needs-human' },
      { number: wontfix, reason: 'label wontfix' },
    ]);
    expect(backlog.issues.map((i) => i.number)).not.toContain(other);
  });

  it('orders by priority label, then oldest', async () => {
    const e = await emulated(await dirs.make(), { config: { priority_labels: ['priority:high'] } });
    const old = e.emulator.addIssue({
      title: 'old',
      author: 'm',
      authorAssociation: 'OWNER',
      labels: ['issueloop'],
      createdAt: '2026-01-01T00:00:00Z',
    });
    const urgent = e.emulator.addIssue({
      title: 'urgent',
      author: 'm',
      authorAssociation: 'OWNER',
      labels: ['issueloop', 'priority:high'],
      createdAt: '2026-03-01T00:00:00Z',
    });
    const backlog = await e.adapter.listBacklog();
    expect(backlog.issues.map((i) => i.number)).toEqual([urgent, old]);
  });

  it('an unreadable ETag cache is moved aside and the round goes on', async () => {
    const dir = await dirs.make();
    const { mkdir, writeFile, readdir } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}/github-etags.json`, '{"version":1,"entries":');
    const e = await emulated(dir);
    seed(e.emulator, 2);
    expect((await e.adapter.listBacklog()).issues).toHaveLength(2);
    expect((await readdir(dir)).some((f) => f.startsWith('github-etags.json.corrupt-'))).toBe(true);
    expect(e.log.some((l) => l.level === 'warn' && /moved aside/.test(l.msg ?? ''))).toBe(true);
  });
});
