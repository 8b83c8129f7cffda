import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { OutcomeRecord } from '../../src/claims/outcome-record.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { fleet, NOW, shifted, storeOutcomes } from '../run/outcome-fixtures.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** A checkout whose file store holds these outcome records, written through the outcome store. */
async function checkoutWith(records: readonly OutcomeRecord[]): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'issueloop-report-cli-'));
  dirs.push(cwd);
  await mkdir(join(cwd, '.issueloop'), { recursive: true });
  await storeOutcomes(join(cwd, '.issueloop'), records);
  return cwd;
}

// The fleet's dates against the real clock: the CLI reads it (an hour of slack for the test's run).
const nowFleet = () => shifted(fleet(), Date.now() - NOW - 3_600_000);

describe('issueloop report', () => {
  it('--json gives the figures of the records in the last 30 days', async () => {
    const cwd = await checkoutWith(nowFleet());
    const result = await runInProcess(['report', '--json'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.since).toBe('30d');
    expect(report.total.issues_attempted).toBe(6);
    expect(report.total.prs).toEqual({ opened: 5, merged: 3, closed_unmerged: 1, open: 1 });
    expect(report.total.usd_total).toBe(5.375);
    expect(report.total.usd_per_merged_pr).toBeCloseTo(5.375 / 3, 6);
    expect(report.groups).toBeUndefined();
  });

  it('prints a text table, grouped with --by label, and a shorter window with --since', async () => {
    const cwd = await checkoutWith(nowFleet());
    const text = await runInProcess(['report', '--by', 'label'], { cwd });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('dollars per merged PR     $1.79');
    expect(text.stdout).toMatch(/^ {2}bug\s+3\s+3\s+3\s+0\s+0\s+100\.0%/m);
    // 7 days back: only #4 (opened 5 days before NOW) and #7 (2 days).
    const week = await runInProcess(['report', '--since', '7d', '--json'], { cwd });
    const report = JSON.parse(week.stdout);
    expect(report.total.issues_attempted).toBe(2);
    expect(report.total.usd_per_merged_pr).toBeNull();
    const weekText = await runInProcess(['report', '--since', '7d'], { cwd });
    expect(weekText.stdout).toContain('dollars per merged PR     no merged PR yet');
  });

  it('says when no issue was worked in the window (no outcome records at all)', async () => {
    const cwd = await checkoutWith([]);
    const result = await runInProcess(['report'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('outcomes over the last 30d');
    expect(result.stdout).toContain('no issue worked in this window');
  });

  it('a bad --since or --by is a usage error (exit 2) that says what to pass', async () => {
    const cwd = await checkoutWith([]);
    const since = await runInProcess(['report', '--since', 'a month'], { cwd });
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since a month: not a duration; pass one such as 30d');
    const by = await runInProcess(['report', '--by', 'author'], { cwd });
    expect(by.code).toBe(2);
    expect(by.stderr).toContain('--by author: group by label, engine, model');
  });

  it('a corrupt outcomes file is an error naming the file, never read as empty', async () => {
    const cwd = await checkoutWith([]);
    await writeFile(join(cwd, '.issueloop', 'outcomes.json'), '[{"issue": 1}]');
    const result = await runInProcess(['report'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/outcomes\.json/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('has --help', async () => {
    const result = await runInProcess(['report', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--since <duration>');
    expect(result.stdout).toContain('--by <group>');
    const top = await runInProcess(['--help']);
    expect(top.stdout).toMatch(/^ {2}report \[options\] +what the fleet achieved/m);
  });
});
