import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { TERMINAL_ACTS } from '../helpers/terminal-acts.js';
import { createClaimsCheckouts } from './claims-checkouts.js';

const { checkout, cleanup } = createClaimsCheckouts();
afterAll(cleanup);

const line = (event: Record<string, unknown>) =>
  `${JSON.stringify({ ts: '2026-11-21T12:00:00.000Z', run: 'r2', ...event })}\n`;

describe('issueloop status', () => {
  it('shows the last run per issue (regression: the cost of all its sessions, not the last one), the live leases and what needs a human; a torn ledger line is skipped', async () => {
    const { cwd } = await checkout();
    const runs = join(cwd, '.issueloop', 'runs');
    await mkdir(runs, { recursive: true });
    await writeFile(
      join(runs, '20261120T000000Z-0001.jsonl'),
      line({ run: 'r1', type: 'outcome', issue: 1, outcome: 'resolved' }),
    );
    const newest = join(runs, '20261121T120000Z-0002.jsonl');
    await writeFile(
      newest,
      line({ type: 'run_start' }) +
        line({
          type: 'outcome',
          issue: 12,
          outcome: 'verify_failed',
          costUsd: 0.5,
          durationMs: 65_000,
          reason: 'npm test failed',
        }) +
        line({
          type: 'outcome',
          issue: 12,
          outcome: 'resolved',
          costUsd: 0.25,
          durationMs: 30_000,
          pr: 'https://github.com/o/r/pull/3',
        }) +
        line({ type: 'run_end', stop: 'empty_backlog' }),
    );
    await appendFile(newest, '{"ts":"2026-11-21T12:00:01.000Z","type":"outc');
    const result = await runBuiltCli(['status'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`last run r2: empty_backlog, $0.75 (${newest})`);
    expect(result.stdout).toContain('  #12 resolved $0.75 1m 35s (2 sessions) https://github.com/o/r/pull/3');
    expect(result.stdout).toContain('(1 unreadable ledger line(s) skipped)');
    expect(result.stdout).toMatch(/live leases:\n {2}#7 held by host-a:1, (59m \d\ds|1h 00m) left/);
    expect(result.stdout).toContain(
      'needs a human:\n  #5 after 3 failures: verify_failed: npm test failed (attempt 3)',
    );

    const json = await runInProcess(['status', '--json'], { cwd });
    const report = JSON.parse(json.stdout);
    expect(report.lastRun.issues).toEqual([
      {
        issue: 12,
        outcome: 'resolved',
        pr: 'https://github.com/o/r/pull/3',
        costUsd: 0.75,
        durationMs: 95_000,
        reason: '',
        sessions: 2,
      },
    ]);
    expect(report.needsHuman.map((n: { issue: number }) => n.issue)).toEqual([5]);
  });

  it("shows issueloop's pull requests as the last run saw them: what an open one needs, merged ones", async () => {
    const { cwd } = await checkout();
    const runs = join(cwd, '.issueloop', 'runs');
    await mkdir(runs, { recursive: true });
    const pr = (n: number) => `https://github.com/o/r/pull/${n}`;
    /** An open PR's latest state in the ledger, and as `status --json` shows it. */
    const failing = {
      issue: 4,
      pr: pr(9),
      state: 'open',
      detail: 'checks failed (test)',
      checks: 'failed',
      mergeable: true,
      followups: 1,
    };
    await writeFile(
      join(runs, '20261122T000000Z-0003.jsonl'),
      line({ type: 'run_start' }) +
        line({ type: 'pull_request', issue: 4, pr: pr(9), state: 'open', detail: 'checks running: test' }) +
        line({ type: 'pull_request', ...failing }) +
        line({ type: 'pull_request', issue: 2, pr: pr(8), state: 'merged' }) +
        line({ type: 'run_end', stop: 'empty_backlog' }),
    );
    const result = await runInProcess(['status'], { cwd });
    expect(result.stdout).toContain(
      `pull requests:\n  #2 merged ${pr(8)}\n  #4 open: checks failed (test); 1 follow-up(s) ${pr(9)}`,
    );
    const json = JSON.parse((await runInProcess(['status', '--json'], { cwd })).stdout);
    expect(json.lastRun.pulls).toEqual([{ issue: 2, pr: pr(8), state: 'merged', detail: 'merged' }, failing]);
  });

  it('regression: a check name holding `\\x1b]0;pwned\\x07\\x1b[2J` set the terminal title and cleared the screen; it is stripped, and --json keeps it escaped', async () => {
    const { cwd } = await checkout();
    const runs = join(cwd, '.issueloop', 'runs');
    await mkdir(runs, { recursive: true });
    const hostile = 'test\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil\r';
    const detail = `checks failed (${hostile})`;
    await writeFile(
      join(runs, '20261122T000000Z-0004.jsonl'),
      line({ type: 'run_start' }) +
        line({ type: 'pull_request', issue: 4, pr: 'https://github.com/o/r/pull/9', state: 'open', detail }) +
        line({ type: 'run_end', stop: 'empty_backlog' }),
    );
    const result = await runInProcess(['status'], { cwd });
    expect(result.stdout).toContain('#4 open: checks failed (testevil)');
    const json = await runInProcess(['status', '--json'], { cwd });
    expect(JSON.parse(json.stdout).lastRun.pulls[0].detail).toBe(detail);
    for (const out of [result.stdout, json.stdout, result.stderr, json.stderr]) {
      expect(out).not.toMatch(TERMINAL_ACTS);
    }
    expect(result.stdout).not.toContain('pwned');
  });

  it('says so when there has been no run yet', async () => {
    const { cwd } = await checkout();
    const result = await runInProcess(['status'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no run yet (no ledger in the state directory)');
  });
});
