import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderStatusOutcomes, statusOutcomes } from '../../src/cli/commands/status-outcomes.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { fleet, NOW, record, session, shifted, storeOutcomes } from '../run/outcome-fixtures.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('status shows outcomes, not only the last run', () => {
  it("a line for the last 30 days, then each issue worked in them with its PR's state and all it cost", () => {
    const outcomes = statusOutcomes(fleet(), NOW);
    expect(outcomes).toMatchObject({ since: '30d', merged: 3, opened: 5 });
    expect(outcomes.usdPerMergedPr).toBeCloseTo(5.375 / 3, 6);
    const lines = renderStatusOutcomes(outcomes);
    expect(lines[0]).toBe('outcomes (30d): 3 merged of 5 opened, $1.79 per merged PR');
    expect(lines.slice(1)).toEqual([
      '  #1 PR merged $1.75 https://github.example/acme/widgets/pull/101',
      '  #2 PR merged $2.00 https://github.example/acme/widgets/pull/102',
      '  #3 PR closed unmerged $0.75 https://github.example/acme/widgets/pull/103',
      '  #4 PR open $0.25 https://github.example/acme/widgets/pull/104',
      // Its first attempt ran before the window: an issue's line is all it cost.
      '  #6 PR merged $4.13 https://github.example/acme/widgets/pull/106',
      '  #7 no PR $0.50',
    ]);
  });

  it('lists twenty issues at most and points at issueloop report for the rest', () => {
    const many = Array.from({ length: 23 }, (_, i) =>
      record(i + 1, { sessions: [session('2025-06-20T00:00:00Z', 0.125)] }),
    );
    const lines = renderStatusOutcomes(statusOutcomes(many, NOW));
    expect(lines[0]).toBe('outcomes (30d): 0 merged of 0 opened, no merged PR yet');
    expect(lines).toHaveLength(1 + 20 + 1);
    expect(lines.at(-2)).toBe('  #20 no PR $0.13');
    expect(lines.at(-1)).toBe('  … and 3 more (issueloop report)');
  });

  it('issueloop status prints the outcomes line, and --json carries them', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'issueloop-status-outcomes-'));
    dirs.push(cwd);
    await mkdir(join(cwd, '.issueloop'), { recursive: true });
    const records = shifted(fleet(), Date.now() - NOW - 3_600_000);
    await storeOutcomes(join(cwd, '.issueloop'), records);
    const text = await runInProcess(['status'], { cwd });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'outcomes (30d): 3 merged of 5 opened, $1.79 per merged PR\n  #1 PR merged $1.75',
    );
    const json = JSON.parse((await runInProcess(['status', '--json'], { cwd })).stdout);
    expect(json.outcomes.issues.map((i: { issue: number; pr: string }) => `${i.issue}:${i.pr}`)).toEqual([
      '1:merged',
      '2:merged',
      '3:closed',
      '4:open',
      '6:merged',
      '7:none',
    ]);
  });
});
