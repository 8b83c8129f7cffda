import { summary } from '@actions/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ActionReport, actionOutputs, escapeHtml, failureAnnotations } from '../../src/action/report.js';
import { outcomeReport } from '../../src/run/outcome-report.js';
import { DAY, fleet, NOW } from '../run/outcome-fixtures.js';
import { drain, PR, run, session, titles } from './report-fixtures.js';

beforeEach(() => {
  summary.emptyBuffer();
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
