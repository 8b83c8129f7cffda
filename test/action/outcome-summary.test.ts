import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summary } from '@actions/core';
import { afterAll, describe, expect, it } from 'vitest';
import { actionOutcomes, fatePie, writeOutcomes } from '../../src/action/outcome-summary.js';
import { outcomeReport } from '../../src/run/outcome-report.js';
import { DAY, fleet, NOW, record, storeOutcomes } from '../run/outcome-fixtures.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const window30 = { since: '30d', sinceMs: 30 * DAY, now: NOW };

/** The outcomes section as @actions/core renders it (the real builder; never written to a file). */
function rendered(report: ReturnType<typeof outcomeReport>): string {
  summary.emptyBuffer();
  writeOutcomes(summary, report);
  return summary.stringify();
}

describe("the action's job summary: outcomes of the last 30 days", () => {
  it('draws a Mermaid pie of merged, closed and open PRs, then a row per figure', () => {
    const html = rendered(outcomeReport(fleet(), window30));
    expect(html).toContain('<h3>Outcomes, last 30d</h3>');
    expect(html).toContain(
      '```mermaid\npie title Pull requests (last 30d)\n    "merged" : 3\n    "closed unmerged" : 1\n    "still open" : 1\n```',
    );
    expect(html).toContain('<td>Acceptance rate</td><td>75.0% (3 of 4 decided)</td>');
    expect(html).toContain('<td>Dollars per merged PR</td><td>$1.79</td>');
    expect(html).toContain('<td>Median time to merge</td><td>96h 00m</td>');
  });

  it('says no merged PR yet, and leaves empty slices out of the pie', () => {
    const open = record(4, {
      sessions: fleet()[3]?.sessions ?? [],
      pull: {
        number: 104,
        url: 'https://github.example/p/104',
        state: 'open',
        opened_at: '2025-06-25T01:00:00Z',
      },
    });
    const report = outcomeReport([open], window30);
    expect(fatePie(report)).toBe('```mermaid\npie title Pull requests (last 30d)\n    "still open" : 1\n```');
    expect(rendered(report)).toContain('<td>Dollars per merged PR</td><td>no merged PR yet</td>');
  });

  it('no issue in the window: a sentence, no chart', () => {
    const html = rendered(outcomeReport([], window30));
    expect(html).toContain('No issue worked in this window.');
    expect(html).not.toContain('mermaid');
  });

  it('a corrupt outcomes file is a warning, not a failed run: the run summary still goes out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issueloop-action-outcomes-'));
    dirs.push(dir);
    const settings = { claims: { store: 'file' as const, max_failures: 3 }, state_dir: dir };
    await storeOutcomes(dir, fleet());
    const warnings: string[] = [];
    const good = await actionOutcomes(settings, '/', NOW, (m) => warnings.push(m));
    expect(good?.total.prs.merged).toBe(3);
    await writeFile(join(dir, 'outcomes.json'), 'not json');
    expect(await actionOutcomes(settings, '/', NOW, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining('no outcome figures in the summary: ')]);
    expect(warnings[0]).toMatch(/outcomes\.json/);
  });
});
