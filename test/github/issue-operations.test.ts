import { afterEach, describe, expect, it } from 'vitest';
import { issueBranch } from '../../src/github/pulls.js';
import { emptyTrackingRecord, type TrackingView } from '../../src/github/tracking-comment.js';
import { createTempStateDirs } from '../claims/temp-state-dirs.js';
import { emulated, TOKEN } from './emulated.js';

const dirs = createTempStateDirs();
afterEach(() => dirs.cleanup());

function view(
  phase: TrackingView['phase'],
  attempt: number,
  extra: Partial<TrackingView> = {},
): TrackingView {
  const record = { ...emptyTrackingRecord('2026-11-21T12:00:00.000Z'), attempts: attempt };
  return { phase, attempt, model: 'claude-sonnet-5-5', costUsd: 0.42, record, ...extra };
}

async function withIssue() {
  const e = await emulated(await dirs.make());
  const n = e.emulator.addIssue({
    title: 'Fix it',
    author: 'm',
    authorAssociation: 'OWNER',
    labels: ['issueloop'],
  });
  return { e, n };
}

describe('tracking comment', () => {
  it('is created once and edited in place, also by a new process after a crash', async () => {
    const { e, n } = await withIssue();
    const first = await e.adapter.tracking.upsert(n, view('working', 1));
    expect(first.created).toBe(true);
    await e.adapter.tracking.upsert(n, view('verifying', 1));
    // A crash: a new process knows nothing of the comment id.
    const after = await e.reopen();
    const again = await after.tracking.upsert(
      n,
      view('working', 2, { lastFailure: 'verify_failed: 3 tests failed' }),
    );
    expect(again).toEqual({ id: first.id, created: false });
    const comments = e.emulator.comments(n);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toMatch(/verify_failed: 3 tests failed/);
    const posts = e.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments'));
    expect(posts).toHaveLength(1);
  });

  it('keeps the machine record readable, so history survives the loss of the state directory', async () => {
    const { e, n } = await withIssue();
    const record = {
      ...emptyTrackingRecord('2026-11-21T12:00:00.000Z'),
      attempts: 2,
      failure_count: 2,
      failure_reasons: [
        { at: '2026-11-21T11:00:00.000Z', error_class: 'verify_failed', message: 'tests failed' },
      ],
      last_outcome: 'verify_failed',
    };
    await e.adapter.tracking.upsert(n, { phase: 'failed', attempt: 2, record });
    const fresh = await emulated(await dirs.make(), { emulator: e.emulator });
    expect(await fresh.adapter.tracking.readRecord(n)).toEqual(record);
  });

  it('ignores a marker pasted by an outsider: no fake history, no hijacked comment', async () => {
    const { e, n } = await withIssue();
    e.emulator.addComment(n, {
      author: 'mallory',
      authorAssociation: 'NONE',
      body: '<!-- issueloop:tracking -->\nfake',
    });
    expect(await e.adapter.tracking.readRecord(n)).toBeUndefined();
    const made = await e.adapter.tracking.upsert(n, view('working', 1));
    expect(made.created).toBe(true);
    expect(e.emulator.comments(n).find((c) => c.user.login === 'mallory')?.body).toContain('fake');
  });

  it('a tracking comment deleted by someone is written anew', async () => {
    const { e, n } = await withIssue();
    const first = await e.adapter.tracking.upsert(n, view('working', 1));
    e.emulator.failNext({
      method: 'PATCH',
      path: `/repos/octo-org/widgets/issues/comments/${first.id}`,
      status: 404,
      body: { message: 'Not Found' },
    });
    const second = await e.adapter.tracking.upsert(n, view('working', 1));
    expect(second.id).toBe(first.id);
    expect(e.emulator.comments(n)).toHaveLength(1);
  });

  it('never writes the token into the comment', async () => {
    const { e, n } = await withIssue();
    await e.adapter.tracking.upsert(
      n,
      view('failed', 1, { lastFailure: `git push https://x:${TOKEN}@github.com failed` }),
    );
    expect(e.emulator.comments(n)[0]?.body).not.toContain(TOKEN);
  });
});

describe('labels', () => {
  it('adds and removes; removing a label that is not there is fine', async () => {
    const { e, n } = await withIssue();
    await e.adapter.labels.addLabels(n, ['issueloop:in-progress']);
    expect(e.emulator.labelsOf(n)).toContain('issueloop:in-progress');
    await e.adapter.labels.removeLabel(n, 'issueloop:in-progress');
    await e.adapter.labels.removeLabel(n, 'issueloop:in-progress');
    expect(e.emulator.labelsOf(n)).not.toContain('issueloop:in-progress');
  });

  it('creates its own label once, with a colour, and checks for free afterwards', async () => {
    const { e } = await withIssue();
    await e.adapter.labels.ensureLabel('issueloop:needs-human');
    expect(e.emulator.repoLabels().find((l) => l.name === 'issueloop:needs-human')?.color).toBe('d93f0b');
    expect(e.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/labels'))).toHaveLength(
      1,
    );
    // The next process sees it exists (one charged GET); the one after that, for free.
    const second = await e.reopen();
    await second.labels.ensureLabel('issueloop:needs-human');
    await second.flush();
    const third = await e.reopen();
    e.emulator.resetRequests();
    await third.labels.ensureLabel('issueloop:needs-human');
    expect(e.emulator.requests.map((r) => r.status)).toEqual([304]);
  });

  it('regression: sessions that start together create the label once (each one created it: 2.4 writes per run)', async () => {
    const { e } = await withIssue();
    await Promise.all([1, 2, 3, 4].map(() => e.adapter.labels.ensureLabel('issueloop:in-progress')));
    const posts = e.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/labels'));
    const reads = e.emulator.requests.filter((r) => r.method === 'GET' && r.path.includes('/labels/'));
    expect(posts).toHaveLength(1);
    expect(reads).toHaveLength(1);
  });

  it('regression: expected 404 and 304 answers are not logged as errors (a run printed them on stderr)', async () => {
    const { e } = await withIssue();
    await e.adapter.labels.ensureLabel('issueloop:in-progress');
    await e.adapter.flush();
    const again = await e.reopen();
    await again.labels.ensureLabel('issueloop:in-progress');
    await again.flush();
    await (await e.reopen()).labels.ensureLabel('issueloop:in-progress');
    expect(e.emulator.requests.map((r) => r.status)).toEqual(expect.arrayContaining([404, 304]));
    expect(e.log.filter((entry) => entry.level === 'error' || entry.level === 'warn')).toEqual([]);
  });
});

describe('draft pull request', () => {
  it('opens a draft from issueloop/issue-<n> against the default branch, then updates it instead of duplicating', async () => {
    const { e, n } = await withIssue();
    const input = { branch: issueBranch(n), title: `Fix #${n}: Fix it`, body: `Closes #${n}\n\nfirst` };
    const opened = await e.adapter.pulls.openOrUpdate(input);
    expect(opened).toMatchObject({ created: true, draft: true, headRef: `issueloop/issue-${n}` });
    const create = e.emulator.requests.find(
      (r) => r.method === 'POST' && r.path === '/repos/octo-org/widgets/pulls',
    );
    expect(create?.body).toMatchObject({ head: `issueloop/issue-${n}`, base: 'main', draft: true });
    const updated = await e.adapter.pulls.openOrUpdate({ ...input, body: `Closes #${n}\n\nsecond` });
    expect(updated).toMatchObject({ created: false, number: opened.number });
    expect(e.emulator.pulls().filter((p) => p.state === 'open')).toHaveLength(1);
    expect(e.emulator.pulls()[0]?.body).toContain('second');
  });

  it('a lost race to create (422 already exists) updates the winner’s PR', async () => {
    const { e, n } = await withIssue();
    const input = { branch: issueBranch(n), title: 't', body: `Closes #${n}` };
    // The other attempt creates its PR between our lookup and our create.
    const winner = await (await e.reopen()).pulls.openOrUpdate(input);
    e.emulator.failNext({ method: 'GET', path: /\/pulls\?/, status: 200, body: [] });
    const ours = await e.adapter.pulls.openOrUpdate({ ...input, body: `Closes #${n}\n\nours` });
    expect(ours).toMatchObject({ created: false, number: winner.number });
    expect(e.emulator.pulls()).toHaveLength(1);
  });
});
