import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ParsedMessagesRequest, reply } from '../../src/emulators/anthropic/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

// Issue 31's scenario: what the fleet achieved and what it cost, end to end on the emulators. Four
// issues are worked by a first run; on GitHub one PR is merged as issueloop wrote it (after a CI
// follow-up of issueloop's own), one merged after a maintainer's commit on its branch, one closed
// unmerged (its issue goes back to the queue, `pr.on_closed: queue`, and a second run works it
// again), one left open. `report --json` must give the figures computed here by hand from the
// ledgers (runs/*.jsonl) and from GitHub's side, never from the report's own code.

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" }, { gitOverHttp: true });

// One empty round ends a run; every round looks at the PRs.
const ARGS = [
  'run',
  '-R',
  'octo-org/widgets',
  '--set',
  'poll_interval=1h',
  '--set',
  'empty_rounds=1',
  '--set',
  'pr.watch_interval=0s',
  '--set',
  'verify.command=true',
  '--set',
  'log_level=warn',
];

const byMember = { author: 'octocat', authorAssociation: 'MEMBER' as const, labels: ['issueloop'] };

/** The emulated primary model's price, dollars per token: $3 / MTok in, $15 / MTok out. */
const PRICE = { input: 3 / 1e6, output: 15 / 1e6 };

/** Scripted output tokens of a session's first call: the known part of each session's cost. */
const OUTPUT_TOKENS = 2_000;

interface LedgerLine {
  ts: string;
  type: string;
  issue?: number;
  costUsd?: number;
  pr?: string;
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

async function ledger(checkout: string): Promise<LedgerLine[]> {
  const dir = join(checkout, '.issueloop', 'runs');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort();
  const texts = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
  return texts.flatMap((t) =>
    t
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as LedgerLine),
  );
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const usd = (value: number) => Math.round(value * 1e6) / 1e6;

/**
 * Each session edits a file of its own (the first call, with OUTPUT_TOKENS of output), then ends its
 * turn. While issue 3's session runs, CI fails on issue 1's PR: a later round works a CI follow-up.
 */
function scripted(failIssueOnesCheck: () => void) {
  let sessions = 0;
  return (request: ParsedMessagesRequest) => {
    if (request.messages.length > 1) return reply.text('Done.');
    sessions += 1;
    const text = request.messages[0]?.content.map((b) => b.text ?? '').join('') ?? '';
    if (/^Issue #3:/m.test(text) && sessions === 3) failIssueOnesCheck();
    const edit = reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: `change-${sessions}.txt`, file_text: `session ${sessions}\n` },
      },
    ]);
    return { ...edit, outputTokens: OUTPUT_TOKENS };
  };
}

describe('issue 31 scenario: merged untouched, merged after a maintainer commit, closed unmerged, still open', () => {
  it('report --json gives the counts, rates and dollars the ledgers and GitHub say; report and status show them', {
    timeout: 30_000,
  }, async () => {
    const gh = run.github;
    const issues = [1, 2, 3, 4].map((i) => gh.addIssue({ title: `Task ${i}`, body: `do ${i}`, ...byMember }));
    expect(issues).toEqual([1, 2, 3, 4]);
    const { env } = await run.start(
      scripted(() => {
        gh.addCheckRun({
          ref: 'issueloop/issue-1',
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
        });
      }),
    );
    const cwd = run.fx.checkout;

    const first = await runInProcess(ARGS, { cwd, env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const prOf = (issue: number) => {
      const pr = gh.pulls().find((p) => p.head.ref === `issueloop/issue-${issue}` && p.state === 'open');
      if (!pr) throw new Error(`no open PR for #${issue}`);
      return pr;
    };
    const firstPulls = [1, 2, 3, 4].map(prOf);

    // On GitHub: #1 merged as it is; a maintainer commits on #2's branch, then merges; #3 closed.
    gh.mergePull(firstPulls[0]?.number ?? 0, 'maintainer');
    const { git, seed } = run.fx;
    git(seed, 'fetch', '--quiet', 'origin');
    git(seed, 'checkout', '--quiet', '-B', 'issueloop/issue-2', 'origin/issueloop/issue-2');
    run.fx.commitFiles(seed, { 'NOTES.md': 'a maintainer was here\n' }, 'maintainer: a note');
    git(seed, 'push', '--quiet', 'origin', 'HEAD:issueloop/issue-2');
    gh.mergePull(firstPulls[1]?.number ?? 0, 'maintainer');
    gh.closePull(firstPulls[2]?.number ?? 0, 'maintainer');

    const second = await runInProcess(ARGS, { cwd, env });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    // #3 went back to the queue and was worked again: a new PR, still open.
    const reworked = prOf(3);
    expect(reworked.number).not.toBe(firstPulls[2]?.number);

    // By hand, from the ledgers. Every model call cost what its tokens say at the model's price.
    const events = await ledger(cwd);
    const calls = events.filter((e) => e.type === 'model_call');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const { input = 0, output = 0 } = call.usage ?? {};
      expect(call.costUsd).toBeCloseTo(input * PRICE.input + output * PRICE.output, 9);
    }
    expect(calls.filter((c) => c.usage?.output === OUTPUT_TOKENS)).toHaveLength(6);
    const outcomes = events.filter((e) => e.type === 'outcome');
    const costOf = (list: readonly LedgerLine[]) => sum(list.map((e) => e.costUsd ?? 0));
    for (const issue of issues) {
      const ofIssue = (e: LedgerLine) => e.issue === issue;
      expect(costOf(outcomes.filter(ofIssue))).toBeCloseTo(costOf(calls.filter(ofIssue)), 9);
    }
    // Sessions: #1 twice (its attempt, the CI follow-up), #2 once, #3 twice (two PRs), #4 once.
    const sessionsOf = (issue: number) => outcomes.filter((e) => e.issue === issue);
    expect(issues.map((i) => sessionsOf(i).length)).toEqual([2, 1, 2, 1]);

    const urls = new Set(outcomes.flatMap((e) => (e.pr ? [e.pr] : [])));
    const fate = (url: string) => gh.pulls().find((p) => url.endsWith(`/pull/${p.number}`));
    const merged = [...urls].filter((u) => fate(u)?.merged);
    const closed = [...urls].filter((u) => fate(u)?.state === 'closed' && !fate(u)?.merged);
    const open = [...urls].filter((u) => fate(u)?.state === 'open');
    const total = costOf(outcomes);
    const onClosed = costOf(outcomes.filter((e) => e.pr !== undefined && closed.includes(e.pr)));
    const mergedIssues = [1, 2];
    const followUps = sum(mergedIssues.map((i) => sessionsOf(i).length - 1));
    // Time to merge: from the first claim to GitHub's merged_at. The ledger brackets the claim: the
    // lease is taken after the previous round's line (or the run's start) and before the claim line.
    const claimBounds = (issue: number) => {
      const at = events.findIndex((e) => e.type === 'claim' && e.issue === issue);
      const ownRound = events.findLastIndex((e, i) => i < at && e.type === 'round');
      const before = events.findLast(
        (e, i) => i < ownRound && (e.type === 'round' || e.type === 'run_start'),
      );
      return { latest: Date.parse(events[at]?.ts ?? ''), earliest: Date.parse(before?.ts ?? '') };
    };
    const toMerge = mergedIssues.map((i) => {
      const mergedAt = Date.parse(prOfIssue(gh.pulls(), i)?.merged_at ?? '');
      const { latest, earliest } = claimBounds(i);
      return { min: mergedAt - latest, max: mergedAt - earliest };
    });

    const report = await runInProcess(['report', '--json'], { cwd, env });
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    const figures = JSON.parse(report.stdout).total;
    expect(figures).toMatchObject({
      issues_attempted: new Set(outcomes.map((e) => e.issue)).size,
      prs: { opened: urls.size, merged: merged.length, closed_unmerged: closed.length, open: open.length },
      acceptance_rate: merged.length / (merged.length + closed.length),
      zero_touch: 1,
      zero_touch_rate: 1 / merged.length,
      usd_total: usd(total),
      usd_on_closed_prs: usd(onClosed),
      followups_per_merged_pr: followUps / merged.length,
    });
    expect(figures.usd_per_merged_pr).toBeCloseTo(total / merged.length, 6);
    const [a, b] = toMerge;
    expect(figures.median_ms_to_merge).toBeGreaterThanOrEqual(((a?.min ?? 0) + (b?.min ?? 0)) / 2);
    expect(figures.median_ms_to_merge).toBeLessThanOrEqual(((a?.max ?? 0) + (b?.max ?? 0)) / 2);
    // The scenario's shape, so the figures above are not vacuous.
    expect(figures.prs).toEqual({ opened: 5, merged: 2, closed_unmerged: 1, open: 2 });
    expect(figures.usd_on_closed_prs).toBeGreaterThan(0);
    expect(figures.followups_per_merged_pr).toBe(0.5);

    const text = await runInProcess(['report'], { cwd, env });
    expect(text.stdout).toContain('PRs opened                5 (merged 2, closed unmerged 1, still open 2)');
    expect(text.stdout).toContain('acceptance rate           66.7% (2 merged of 3 decided)');
    expect(text.stdout).toContain('zero-touch rate           50.0% (1 of 2 merged)');
    const status = await runInProcess(['status'], { cwd, env });
    expect(status.code).toBe(0);
    const perMerged = `$${(total / merged.length).toFixed(2)}`;
    expect(status.stdout).toContain(`outcomes (30d): 2 merged of 5 opened, ${perMerged} per merged PR`);
    expect(status.stdout).toMatch(/^ {2}#3 PR open \$\d+\.\d\d /m);
  });
});

function prOfIssue<T extends { head: { ref: string }; merged: boolean }>(pulls: T[], issue: number) {
  return pulls.find((p) => p.head.ref === `issueloop/issue-${issue}` && p.merged);
}
