import { describe, expect, it } from 'vitest';
import { demoSummary } from '../../src/cli/commands/demo/demo-command.js';

const summary = (ledger: string, issue: number) =>
  JSON.stringify({ stop: 'empty_backlog', ledger, reports: [{ issue, outcome: 'resolved' }] });

const RUNS = [
  { name: 'first_attempt', text: summary('/tmp/demo/widgets/.issueloop/runs/a.jsonl', 1) },
  { name: 'ci_follow_up', text: summary('/tmp/demo/widgets/.issueloop/runs/b.jsonl', 1) },
  { name: 'merge', text: summary('/tmp/demo/widgets/.issueloop/runs/c.jsonl', 1) },
] as const;

describe("newcomer: demo --json gives all three runs and the ledger's path", () => {
  it('is one JSON document with every run, its summary and its ledger path when kept', () => {
    const document = JSON.parse(demoSummary(RUNS, true));
    expect(document.kept).toBe(true);
    expect(document.runs).toEqual([
      expect.objectContaining({ name: 'first_attempt', ledger: '/tmp/demo/widgets/.issueloop/runs/a.jsonl' }),
      expect.objectContaining({ name: 'ci_follow_up', ledger: '/tmp/demo/widgets/.issueloop/runs/b.jsonl' }),
      expect.objectContaining({ name: 'merge', ledger: '/tmp/demo/widgets/.issueloop/runs/c.jsonl' }),
    ]);
    expect(document.runs[0].summary).toMatchObject({ stop: 'empty_backlog', reports: [{ issue: 1 }] });
  });

  it('gives no ledger path when the repository was removed, saying so with kept', () => {
    const document = JSON.parse(demoSummary(RUNS, false));
    expect(document.kept).toBe(false);
    expect(document.runs.map((run: { name: string }) => run.name)).toEqual([
      'first_attempt',
      'ci_follow_up',
      'merge',
    ]);
    for (const run of document.runs) {
      expect(run.ledger).toBeNull();
      expect(run.summary.ledger).toBeNull();
      expect(run.summary.stop).toBe('empty_backlog');
    }
  });

  it('keeps the output of a run that printed no JSON (a failed run) rather than dropping it', () => {
    const document = JSON.parse(demoSummary([{ name: 'first_attempt', text: 'not json\n' }], false));
    expect(document.runs).toEqual([
      { name: 'first_attempt', ledger: null, summary: null, output: 'not json\n' },
    ]);
  });
});
