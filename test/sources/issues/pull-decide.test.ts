import { describe, expect, it } from 'vitest';
import { latestPerApp, summarizeChecks } from '../../../src/github/check-summary.js';
import { decidePull } from '../../../src/sources/issues/pull-decide.js';
import { pullDetail as pull } from './follow-up-fixture.js';

const run = (name: string, status: string, conclusion: string | null, title?: string) => ({
  id: name.length,
  name,
  status,
  conclusion,
  output: { title: title ?? null, summary: null },
});
const none = { unanswered: 0 };

describe('the checks of a head commit', () => {
  it('no checks and no statuses is none, not pending (GitHub says pending for an empty combined status)', () => {
    expect(summarizeChecks([], []).state).toBe('none');
  });

  it('pending while any check run or status has not completed, even when another failed already', () => {
    const summary = summarizeChecks(
      [run('test', 'completed', 'failure'), run('lint', 'in_progress', null)],
      [{ context: 'ci/legacy', state: 'success' }],
    );
    expect(summary.state).toBe('pending');
    expect(summary.pending).toEqual(['lint']);
  });

  it('failed names each failing check run and status with its summary; neutral and skipped pass', () => {
    const summary = summarizeChecks(
      [
        run('test', 'completed', 'failure', '2 tests failed'),
        run('docs', 'completed', 'skipped'),
        run('bench', 'completed', 'neutral'),
      ],
      [{ context: 'ci/legacy', state: 'error', description: 'build errored' }],
    );
    expect(summary.state).toBe('failed');
    expect(summary.failed.map((f) => [f.kind, f.name, f.summary])).toEqual([
      ['check_run', 'test', '2 tests failed'],
      ['status', 'ci/legacy', 'build errored'],
    ]);
  });

  it("a re-run replaces its own app's run only: the newest of each name per app counts", () => {
    const actions = { slug: 'github-actions', id: 15368 };
    const runs = [
      { ...run('test', 'completed', 'failure'), id: 1, app: actions },
      { ...run('test', 'completed', 'success'), id: 3, app: actions },
      { ...run('test', 'completed', 'failure'), id: 2, app: { slug: 'other', id: 9 } },
    ];
    expect(latestPerApp(runs).map((r) => r.id)).toEqual([3, 2]);
  });

  it('passed when every check completed without a failing conclusion', () => {
    expect(summarizeChecks([run('test', 'completed', 'success')], []).state).toBe('passed');
  });
});

describe('what an open pull request needs next', () => {
  const passed = summarizeChecks([run('test', 'completed', 'success')], []);
  const failed = summarizeChecks([run('test', 'completed', 'failure', 'boom')], []);
  const pending = summarizeChecks([run('test', 'queued', null)], []);

  it('a conflict comes first, whatever the checks say', () => {
    expect(decidePull(pull({ mergeable: false, mergeableState: 'dirty' }), failed, none).kind).toBe(
      'conflict',
    );
  });

  it('a branch behind a protected base is brought up to date before its checks are judged', () => {
    expect(decidePull(pull({ mergeableState: 'behind' }), failed, { unanswered: 1 })).toEqual({
      kind: 'behind',
    });
  });

  it('pending checks are waited for, not guessed', () => {
    expect(decidePull(pull(), pending, { unanswered: 2 })).toEqual({
      kind: 'wait',
      why: 'checks running: test',
    });
  });

  it('failed checks before review comments', () => {
    const decision = decidePull(pull(), failed, { unanswered: 2 });
    expect(decision.kind).toBe('ci_failed');
    expect(decision.kind === 'ci_failed' && decision.failed[0]?.summary).toBe('boom');
  });

  it('unanswered review threads once the checks are green', () => {
    expect(decidePull(pull(), passed, { unanswered: 2 })).toEqual({ kind: 'changes_requested', threads: 2 });
  });

  it('green with nothing left; unknown mergeability waits', () => {
    expect(decidePull(pull(), passed, none)).toEqual({ kind: 'green' });
    expect(decidePull(pull({ mergeable: null }), passed, none).kind).toBe('wait');
  });
});
