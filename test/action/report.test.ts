import { summary } from '@actions/core';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type ActionReport,
  actionOutputs,
  escapeHtml,
  failureAnnotations,
  writeJobSummary,
} from '../../src/action/report.js';
import { outcomeReport } from '../../src/run/outcome-report.js';
import { STOP_TEXT } from '../../src/run/run-summary.js';
import type { RunSummary } from '../../src/scheduler/run-rounds.js';
import type { SessionReport } from '../../src/session/session-report.js';
import { DAY, fleet, NOW } from '../run/outcome-fixtures.js';

const PR = (n: number) => `https://github.com/octo-org/widgets/pull/${n}`;

function session(fields: Pick<SessionReport, 'issue' | 'outcome'> & Partial<SessionReport>): SessionReport {
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

function run(
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
function render(report: ActionReport): string {
  summary.emptyBuffer();
  writeJobSummary(summary, report);
  return summary.stringify();
}

/**
 * Each `<table>` of the summary as rows of cell HTML (headers and data alike). @actions/core writes
 * an empty cell as a bare `<td>` without its end tag, so cells are split at their start tags.
 */
function tables(html: string): string[][][] {
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
function table(html: string, first: string): string[][] {
  const found = tables(html).find((rows) => rows[0]?.[0] === first);
  if (!found) throw new Error(`no table starting with ${first} in:\n${html}`);
  return found;
}

const titles = new Map([
  [1, 'Fix the greeting'],
  [2, 'Flaky test'],
  [3, 'Rotate the key'],
  [4, 'Slow build'],
]);

/** A drain: one resolved with a PR, one verify failure, one auth error, one interrupted. */
function drain(): ActionReport {
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

beforeEach(() => {
  summary.emptyBuffer();
});

describe('writeJobSummary', () => {
  it('writes a heading naming the scope and why the run stopped', () => {
    const html = render(drain());
    expect(html).toContain('<h2>issueloop: drain</h2>');
    expect(html).toContain(`<p>${escapeHtml(STOP_TEXT.time_budget)} after 2 round(s).</p>`);
    const issueMode = render({ mode: 'issue', issue: 7, titles, run: run({}) });
    expect(issueMode).toContain('<h2>issueloop: issue #7</h2>');
  });

  it('says which spend cap stopped the run and when its window reopens', () => {
    const detail =
      'daily cap $20 reached ($19.40 spent, $5 reserved); the window reopens at 2026-11-27 00:00 UTC, in 3h 12m';
    const html = render({
      mode: 'drain',
      titles,
      run: run({ stop: 'budget', rounds: 3, stopDetail: detail }),
    });
    expect(html).toContain('<p>spend cap reached: no new claims after 3 round(s).</p>');
    expect(html).toContain(`<p>${escapeHtml(detail)}.</p>`);
    expect(render({ mode: 'drain', titles, run: run({ stop: 'budget' }) })).toContain(
      `<p>${STOP_TEXT.budget} after 1 round(s).</p>`,
    );
    // A drain the time budget ended after a cap was reached reports the time budget only.
    const timed = render({ mode: 'drain', titles, run: run({ stop: 'time_budget', stopDetail: detail }) });
    expect(timed).toContain(`<p>${escapeHtml(STOP_TEXT.time_budget)} after 1 round(s).</p>`);
    expect(timed).not.toContain('daily cap');
  });

  it('writes a row per issue with its outcome, pull request link and cost', () => {
    const rows = table(render(drain()), 'Issue');
    expect(rows[0]).toEqual(['Issue', 'Title', 'Outcome', 'Pull request', 'Cost', 'Time', 'Reason']);
    expect(rows.slice(1)).toEqual([
      [
        '#1',
        'Fix the greeting',
        '<code>resolved</code>',
        `<a href="${PR(10)}">#10</a>`,
        '$0.12',
        '1m 05s',
        '',
      ],
      ['#2', 'Flaky test', '<code>verify_failed</code>', '', '$0.20', '30s', 'npm test: 2 failing'],
      ['#3', 'Rotate the key', '<code>error:auth</code>', '', '$0.00', '30s', 'invalid x-api-key'],
      ['#4', 'Slow build', '<code>interrupted</code>', '', '$0.10', '30s', 'the run was stopped'],
    ]);
  });

  it('escapes an issue title so it cannot open a tag', () => {
    const report = drain();
    report.titles = new Map([[1, 'Fix <script>alert("x")</script> & more']]);
    const html = render(report);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('"x"');
    expect(table(html, 'Issue')[1]?.[1]).toBe(
      'Fix &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more',
    );
  });

  it('escapes reasons, skipped titles and the notice too', () => {
    const report: ActionReport = {
      mode: 'drain',
      titles,
      notice: 'label <b>x</b>',
      run: run({
        reports: [session({ issue: 2, outcome: 'no_changes', reason: 'said "<img src=x>"' })],
        skipped: [{ issue: 9, title: '<i>it</i>', why: "author's <u>call</u>" }],
      }),
    };
    const html = render(report);
    expect(html).not.toMatch(/<(b|img|i|u)[ >]/);
    expect(html).toContain('<p>label &lt;b&gt;x&lt;/b&gt;</p>');
    expect(table(html, 'Issue')[1]?.[6]).toBe('said &quot;&lt;img src=x&gt;&quot;');
    expect(table(html, 'Issue')[0]).toEqual([
      'Issue',
      'Title',
      'Outcome',
      'Pull request',
      'Cost',
      'Time',
      'Reason',
    ]);
    expect(tables(html).find((t) => t[0]?.[2] === 'Why')?.[1]).toEqual([
      '#9',
      '&lt;i&gt;it&lt;/i&gt;',
      'author&#39;s &lt;u&gt;call&lt;/u&gt;',
    ]);
  });

  it('cuts a long reason at 200 characters', () => {
    const reason = 'x'.repeat(300);
    const report: ActionReport = {
      mode: 'drain',
      titles,
      run: run({ reports: [session({ issue: 1, outcome: 'budget_exceeded', reason })] }),
    };
    const cell = table(render(report), 'Issue')[1]?.[6] ?? '';
    expect(cell).toBe(`${'x'.repeat(199)}…`);
  });

  it('counts failures by class, leaving out resolved and interrupted sessions', () => {
    const report = drain();
    report.run?.summary.reports.push(session({ issue: 8, outcome: 'verify_failed', reason: 'lint' }));
    const html = render(report);
    expect(html).toContain('<h3>Failures by class</h3>');
    expect(table(html, 'Class')).toEqual([
      ['Class', 'Sessions'],
      ['<code>verify_failed</code>', '2'],
      ['<code>auth</code>', '1'],
    ]);
  });

  it('writes no failures table when nothing failed', () => {
    const report: ActionReport = {
      mode: 'drain',
      titles,
      run: run({
        reports: [session({ issue: 1, outcome: 'resolved' }), session({ issue: 4, outcome: 'interrupted' })],
      }),
    };
    const html = render(report);
    expect(html).not.toContain('Failures by class');
    expect(tables(html).some((t) => t[0]?.[0] === 'Class')).toBe(false);
  });

  it("lists what the run did not work under 'Not worked'", () => {
    const html = render(drain());
    expect(html).toContain('<h3>Not worked</h3>');
    expect(tables(html).find((t) => t[0]?.[2] === 'Why')).toEqual([
      ['Issue', 'Title', 'Why'],
      ['#5', 'Needs design', 'needs a human'],
      ['#6', 'Leased', 'leased by host:1'],
    ]);
  });

  it('shows at most 50 skipped issues and counts the rest', () => {
    const skipped = Array.from({ length: 53 }, (_, i) => ({ issue: 100 + i, title: `t${i}`, why: 'leased' }));
    const html = render({ mode: 'drain', titles, run: run({ skipped }) });
    const notWorked = tables(html).find((t) => t[0]?.[2] === 'Why');
    expect(notWorked).toHaveLength(51);
    expect(notWorked?.at(-1)?.[0]).toBe('#149');
    expect(html).toContain('<p>…and 3 more.</p>');
  });

  it('writes the totals with the GitHub requests charged and free', () => {
    expect(table(render(drain()), 'Resolved')).toEqual([
      ['Resolved', 'Failed', 'Interrupted', 'Cost', 'GitHub requests charged', 'Free (304)'],
      ['1', '2', '1', '$0.42', '37', '12'],
    ]);
  });

  it('writes only the totals for a run without sessions or skips', () => {
    const html = render({
      mode: 'drain',
      titles,
      run: run({ stop: 'empty_backlog' }, { charged: 3, free: 1 }),
    });
    expect(tables(html)).toEqual([
      [
        ['Resolved', 'Failed', 'Interrupted', 'Cost', 'GitHub requests charged', 'Free (304)'],
        ['0', '0', '0', '$0.00', '3', '1'],
      ],
    ]);
    expect(html).not.toContain('Not worked');
  });

  it('writes the heading and the notice alone when no run happened', () => {
    const html = render({ mode: 'issue', issue: 7, titles, notice: 'label "bug" is not the trigger label' });
    expect(html).toContain('<h2>issueloop: issue #7</h2>');
    expect(html).toContain('<p>label &quot;bug&quot; is not the trigger label</p>');
    expect(html).not.toContain('<table>');
  });
});

describe('actionOutputs', () => {
  it("in issue mode reports the issue's outcome, its pull request and the cost to 4 decimals", () => {
    const report: ActionReport = {
      mode: 'issue',
      issue: 7,
      titles,
      run: run({
        costUsd: 0.1234567,
        reports: [
          session({ issue: 7, outcome: 'interrupted', attempt: 1 }),
          session({
            issue: 7,
            outcome: 'resolved',
            attempt: 2,
            pr: { number: 12, url: PR(12), created: true },
          }),
        ],
      }),
    };
    expect(actionOutputs(report)).toEqual({
      outcome: 'resolved',
      pr_url: PR(12),
      issues_resolved: '1',
      cost_usd: '0.1235',
      merged: '',
      usd_per_merged_pr: '',
    });
  });

  it('in issue mode reports a failed outcome without a pull request', () => {
    const report: ActionReport = {
      mode: 'issue',
      issue: 7,
      titles,
      run: run({ costUsd: 0.05, reports: [session({ issue: 7, outcome: 'verify_failed' })] }),
    };
    expect(actionOutputs(report)).toEqual({
      outcome: 'verify_failed',
      pr_url: '',
      issues_resolved: '0',
      cost_usd: '0.0500',
      merged: '',
      usd_per_merged_pr: '',
    });
  });

  it('in issue mode reports skipped when the run had no session for the issue', () => {
    const report: ActionReport = { mode: 'issue', issue: 7, titles, run: run({ stop: 'max_rounds' }) };
    expect(actionOutputs(report).outcome).toBe('skipped');
  });

  it('in drain mode reports why the run stopped and every distinct pull request', () => {
    const report = drain();
    report.run?.summary.reports.push(
      session({ issue: 1, outcome: 'resolved', attempt: 2, pr: { number: 10, url: PR(10), created: false } }),
      session({ issue: 9, outcome: 'resolved', pr: { number: 11, url: PR(11), created: true } }),
    );
    expect(actionOutputs(report)).toEqual({
      outcome: 'time_budget',
      pr_url: `${PR(10)} ${PR(11)}`,
      issues_resolved: '3',
      cost_usd: '0.4200',
      merged: '',
      usd_per_merged_pr: '',
    });
  });

  it('reports refused or skipped when no work was done', () => {
    const refused = actionOutputs({ mode: 'issue', issue: 7, titles, notice: 'untrusted author' }, 'refused');
    expect(refused).toEqual({
      outcome: 'refused',
      pr_url: '',
      issues_resolved: '0',
      cost_usd: '0.0000',
      merged: '',
      usd_per_merged_pr: '',
    });
    expect(actionOutputs({ mode: 'drain', titles }).outcome).toBe('skipped');
    // The reason no work was done wins over a run's stop.
    expect(actionOutputs(drain(), 'refused').outcome).toBe('refused');
  });

  it("sets merged and usd_per_merged_pr from the last 30 days' outcome records", () => {
    const outcomes = outcomeReport(fleet(), { since: '30d', sinceMs: 30 * DAY, now: NOW });
    const outputs = actionOutputs({ ...drain(), outcomes });
    // Three merged PRs; $5.375 spent in the window (see test/run/outcome-report.test.ts).
    expect(outputs.merged).toBe('3');
    expect(outputs.usd_per_merged_pr).toBe((5.375 / 3).toFixed(4));
    const none = outcomeReport([], { since: '30d', sinceMs: 30 * DAY, now: NOW });
    expect(actionOutputs({ ...drain(), outcomes: none })).toMatchObject({
      merged: '0',
      usd_per_merged_pr: '',
    });
  });
});

describe('failureAnnotations', () => {
  it('annotates failed sessions only, not resolved or interrupted ones', () => {
    expect(failureAnnotations(drain())).toEqual([
      { title: 'issueloop #2: verify_failed', message: 'Flaky test: npm test: 2 failing' },
      { title: 'issueloop #3: error:auth', message: 'Rotate the key: invalid x-api-key' },
    ]);
  });

  it('names an issue without a known title by number', () => {
    const report: ActionReport = {
      mode: 'issue',
      issue: 40,
      titles: new Map(),
      run: run({ reports: [session({ issue: 40, outcome: 'no_changes', reason: 'the diff is empty' })] }),
    };
    expect(failureAnnotations(report)).toEqual([
      { title: 'issueloop #40: no_changes', message: '#40: the diff is empty' },
    ]);
  });

  it('is empty without a run', () => {
    expect(failureAnnotations({ mode: 'drain', titles })).toEqual([]);
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('escapes an existing entity again rather than trusting it', () => {
    expect(escapeHtml('&lt;')).toBe('&amp;lt;');
  });

  it('leaves plain text alone', () => {
    expect(escapeHtml('Fix the greeting (#12) — 100%')).toBe('Fix the greeting (#12) — 100%');
  });
});

describe('writeJobSummary: blocked network requests', () => {
  it("lists each session's refused destinations, hostile text shown as \\u{…} and escaped", () => {
    const report = drain();
    const reports = report.run?.summary.reports ?? [];
    reports[1] = session({
      issue: 2,
      outcome: 'verify_failed',
      blockedRequests: [
        { role: 'setup', destination: 'registry.npmjs.org:443', count: 4 },
        { role: 'commands', destination: '<img src=x onerror=alert(1)>\n@team:443', count: 1 },
      ],
    });
    const html = render(report);
    expect(html).toContain('<h3>Blocked network requests</h3>');
    expect(table(html, 'Destination')).toEqual([
      ['Destination', 'Times', 'Sandbox', 'Issue'],
      ['<code>registry.npmjs.org:443</code>', '4', 'setup', '#2'],
      [
        '<code>\\u{3c}img\\u{20}src\\u{3d}x\\u{20}onerror\\u{3d}alert\\u{28}1\\u{29}\\u{3e}\\u{a}\\u{40}team:443</code>',
        '1',
        'commands',
        '#2',
      ],
    ]);
    expect(html).not.toMatch(/<img|@team/);
  });

  it('adds nothing when no proxy refused anything', () => {
    expect(render(drain())).not.toContain('Blocked network requests');
  });
});
