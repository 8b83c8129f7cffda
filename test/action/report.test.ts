import { summary } from '@actions/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ActionReport, escapeHtml } from '../../src/action/report.js';
import { STOP_TEXT } from '../../src/run/run-summary.js';
import { drain, PR, render, run, session, table, tables, titles } from './report-fixtures.js';

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

  it('names the chosen attempt of a best-of-N claim, its reason escaped (issue 32 item 1)', () => {
    const bestOf = {
      n: 3,
      ran: [
        { k: 1, outcome: 'not_chosen' },
        { k: 2, outcome: 'resolved' },
      ],
      winner: 2,
    };
    const report: ActionReport = {
      mode: 'drain',
      titles,
      run: run({
        reports: [
          session({ issue: 1, outcome: 'resolved', bestOf: { ...bestOf, why: 'the <b>smaller</b> diff' } }),
          session({ issue: 2, outcome: 'resolved' }),
        ],
      }),
    };
    const rows = table(render(report), 'Issue');
    expect(rows[1]?.[6]).toBe('best of 3 (2 ran): attempt 2 chosen (the &lt;b&gt;smaller&lt;/b&gt; diff)');
    expect(rows[2]?.[0]).toBe('#2');
    expect(rows[2]?.[6]).toBe('');
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
