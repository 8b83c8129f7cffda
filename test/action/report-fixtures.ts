import { summary } from '@actions/core';
import { type ActionReport, writeJobSummary } from '../../src/action/report.js';
import type { RunSummary } from '../../src/scheduler/run-rounds.js';
import type { SessionReport } from '../../src/session/session-report.js';

/** Sessions, runs and a drain's report for the job summary and output tests, and reading the HTML back. */

export const PR = (n: number) => `https://github.com/octo-org/widgets/pull/${n}`;

export function session(
  fields: Pick<SessionReport, 'issue' | 'outcome'> & Partial<SessionReport>,
): SessionReport {
  return {
    attempt: 1,
    reason: '',
    filesChanged: [],
    verifyRuns: 0,
    model: 'claude-sonnet-5-5',
    modelCalls: 3,
    toolCalls: 5,
    tokens: 12_000,
    costUsd: 0,
    durationMs: 30_000,
    productivity: { score: 1 },
    partialContext: '',
    ...fields,
  };
}

export function run(
  fields: Partial<RunSummary>,
  requests = { charged: 0, free: 0 },
): NonNullable<ActionReport['run']> {
  return {
    summary: { rounds: 1, reports: [], stop: 'empty_backlog', costUsd: 0, skipped: [], ...fields },
    requests,
    ledgerFile: '/tmp/ledger.jsonl',
  };
}

/** The job summary as @actions/core renders it (the real builder; never written to a file). */
export function render(report: ActionReport): string {
  summary.emptyBuffer();
  writeJobSummary(summary, report);
  return summary.stringify();
}

/**
 * Each `<table>` of the summary as rows of cell HTML (headers and data alike). @actions/core writes
 * an empty cell as a bare `<td>` without its end tag, so cells are split at their start tags.
 */
export function tables(html: string): string[][][] {
  return [...html.matchAll(/<table>(.*?)<\/table>/gs)].map(([, body]) =>
    [...(body ?? '').matchAll(/<tr>(.*?)<\/tr>/gs)].map(([, row]) =>
      (row ?? '')
        .split(/<t[hd]>/)
        .slice(1)
        .map((cell) => cell.replace(/<\/t[hd]>$/, '')),
    ),
  );
}

/** The table whose header row starts with `first`. */
export function table(html: string, first: string): string[][] {
  const found = tables(html).find((rows) => rows[0]?.[0] === first);
  if (!found) throw new Error(`no table starting with ${first} in:\n${html}`);
  return found;
}

export const titles = new Map([
  [1, 'Fix the greeting'],
  [2, 'Flaky test'],
  [3, 'Rotate the key'],
  [4, 'Slow build'],
]);

/** A drain: one resolved with a PR, one verify failure, one auth error, one interrupted. */
export function drain(): ActionReport {
  return {
    mode: 'drain',
    titles,
    run: run(
      {
        rounds: 2,
        stop: 'time_budget',
        costUsd: 0.42,
        reports: [
          session({
            issue: 1,
            outcome: 'resolved',
            reason: 'draft PR opened',
            pr: { number: 10, url: PR(10), created: true },
            costUsd: 0.12,
            durationMs: 65_000,
          }),
          session({ issue: 2, outcome: 'verify_failed', reason: 'npm test: 2 failing', costUsd: 0.2 }),
          session({ issue: 3, outcome: 'error:auth', reason: 'invalid x-api-key', costUsd: 0 }),
          session({ issue: 4, outcome: 'interrupted', reason: 'the run was stopped', costUsd: 0.1 }),
        ],
        skipped: [
          { issue: 5, title: 'Needs design', why: 'needs a human' },
          { issue: 6, title: 'Leased', why: 'leased by host:1' },
        ],
      },
      { charged: 37, free: 12 },
    ),
  };
}
