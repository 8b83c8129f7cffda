import { describe, expect, it } from 'vitest';
import { createMemoryOutcomeStore } from '../../src/claims/file-outcome-store.js';
import { spentUsd } from '../../src/claims/outcome-record.js';
import {
  createAnthropicEmulator,
  type ParsedMessagesRequest,
  reply,
} from '../../src/emulators/anthropic/index.js';
import { runAttempts } from '../../src/scheduler/run-attempts.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { readLedger } from '../../src/session/ledger.js';
import { issueWork } from '../../src/sources/issues/issue-work.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { LONG_LEASE, member, roundsFixture } from './rounds-fixture.js';

/**
 * Issue 32 item 1 through a whole run: an issue whose attempt fails verify gets three attempts on
 * its next claim, side by side; the scripted model gives each its own diff and only attempt 2's
 * passes verify (`grep -q "'hello'" greet.js`). Only that one is pushed, as the issue's branch.
 */
const { repo, setup } = roundsFixture();

/** The word each attempt writes for the typo: a single claim (no `-a<k>` branch) writes a wrong one. */
const WORDS: Readonly<Record<string, string>> = { '1': 'hallo', '2': 'hello', '3': 'hullo' };

function attemptScript(request: ParsedMessagesRequest) {
  if (request.messages.length > 1) return reply.text('Done.');
  const branch = /issueloop\/issue-\d+-a(\d)/.exec(JSON.stringify(request.system));
  const word = branch ? (WORDS[branch[1] ?? ''] ?? 'hallo') : 'hallo';
  return reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: `'${word}'` },
    },
  ]);
}

const VERIFY = 'grep -q "\'hello\'" greet.js';

const originRefs = () =>
  repo.fx
    .git(repo.fx.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/')
    .split('\n')
    .filter((ref) => ref !== '');

describe('best-of-N after a failure (issue 32 item 1)', () => {
  it('attempt 1 fails verify; of three parallel attempts the one that passes is pushed, one PR, all three cost the issue', {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx, newSource } = await setup({
      workers: 3,
      verify: { command: VERIFY, retries: 0 },
      ...LONG_LEASE,
      attempts: { n: 3 },
    });
    const issue = gh.emulator.addIssue(member('Fix the greeting typo'));
    const anthropic = createAnthropicEmulator({ script: attemptScript });
    const outcomes = createMemoryOutcomeStore();
    const source = newSource({ outcomes });
    const models = emulatedModels(anthropic, ctx.deps, ctx.redact);
    // With a worker free, rounds go on (the fake clock's polls pass at once) while the first session
    // runs: the run ends on its empty rounds once the work is done, not after a count of rounds a
    // slow machine uses up before the second claim (which made this test fail now and then).
    const run = await runRounds({ ...ctx, source, models }, { owner: 'host:1', maxRounds: 10_000 });

    expect(run.reports.map((r) => [r.issue, r.outcome])).toEqual([
      [issue, 'verify_failed'],
      [issue, 'resolved'],
    ]);
    const claim = run.reports[1];
    expect(claim?.reason).toContain('chosen from 3 attempts: the only attempt that passed verify');

    // Only the winner is on origin, as the issue's branch; no attempt branch was pushed.
    const branch = `issueloop/issue-${issue}`;
    expect(originRefs().sort()).toEqual([`refs/heads/${branch}`, 'refs/heads/main']);
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:greet.js`)).toContain("'hello'");

    // Exactly one PR, saying it was chosen from 3 and why.
    const pulls = gh.emulator.pulls();
    expect(pulls.map((p) => p.head.ref)).toEqual([branch]);
    expect(pulls[0]?.body).toContain('## Chosen from 3 attempts');
    expect(pulls[0]?.body).toContain('chosen from 3 attempts: the only attempt that passed verify');

    // Every attempt's cost is on the issue's record and in the claim's report.
    await ctx.ledger.flush();
    const { events } = await readLedger(ctx.ledger.file);
    const judged = events.find((e) => e.type === 'attempts') as unknown as {
      n: number;
      winner: number;
      attempts: Array<{ attempt: number; outcome: string; costUsd: number }>;
    };
    expect(judged.n).toBe(3);
    expect(judged.winner).toBe(2);
    expect(judged.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'verify_failed'],
      [2, 'resolved'],
      [3, 'verify_failed'],
    ]);
    const attemptsUsd = judged.attempts.reduce((sum, a) => sum + a.costUsd, 0);
    expect(judged.attempts.every((a) => a.costUsd > 0)).toBe(true);
    expect(claim?.costUsd).toBeCloseTo(attemptsUsd, 10);

    const record = await outcomes.get(issue);
    expect(record?.sessions.map((s) => s.outcome).sort()).toEqual([
      'resolved',
      'verify_failed',
      'verify_failed',
      'verify_failed',
    ]);
    expect(spentUsd(record ?? { sessions: [] })).toBeCloseTo(
      (run.reports[0]?.costUsd ?? 0) + attemptsUsd,
      10,
    );
    expect(run.costUsd).toBeCloseTo(spentUsd(record ?? { sessions: [] }), 10);
  });

  it('attempts.max_usd: once the attempts together spent it, no further attempt starts', {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx } = await setup({
      verify: { command: VERIFY, retries: 0 },
      ...LONG_LEASE,
      attempts: { n: 3, max_usd: 0.000001 },
    });
    gh.emulator.addIssue(member('Fix the greeting typo'));
    const [issue] = (await gh.adapter.listBacklog()).issues;
    if (!issue) throw new Error('setup: no issue');
    const work = issueWork(issue, {
      github: gh.adapter,
      checkout: repo.fx.checkout,
      remote: 'origin',
      baseBranch: 'main',
      config: gh.config,
      redact: ctx.redact,
    });
    const anthropic = createAnthropicEmulator({ script: attemptScript });
    const result = await runAttempts({
      ...ctx,
      models: emulatedModels(anthropic, ctx.deps, ctx.redact),
      work,
      attempt: 2,
      n: 3,
      slots: 1,
    });
    expect(result.attempts.map((a) => [a.k, a.report.outcome])).toEqual([[1, 'budget_exceeded']]);
    expect(result.report.outcome).toBe('budget_exceeded');
    expect(result.report.costUsd).toBe(result.attempts[0]?.report.costUsd);
    expect(result.report.costUsd).toBeGreaterThan(0);
    expect(gh.emulator.pulls()).toEqual([]);
  });
});
