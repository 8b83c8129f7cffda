import { describe, expect, it } from 'vitest';
import { createMemoryClaimStore } from '../../../src/claims/memory-claim-store.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createRedactor } from '../../../src/core/redact.js';
import { createGitHubEmulator } from '../../../src/emulators/github/index.js';
import { DONE_REACTION } from '../../../src/github/comment-commands.js';
import { PLAN_LABEL } from '../../../src/github/labels.js';
import { renderPlanComment } from '../../../src/github/plan-comment.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { COMMAND_LOOKBACK_MS, commandSweep } from '../../../src/sources/issues/command-sweep.js';
import { createIssueSource } from '../../../src/sources/issues/issue-source.js';
import {
  PLAN_APPROVED,
  PLAN_REQUESTED,
  PLAN_REVIEW,
  PLAN_WITHDRAWN,
} from '../../../src/sources/issues/plan-outcomes.js';
import { needsPlan, planNote, readPlanStage } from '../../../src/sources/issues/plan-stage.js';
import { EXPIRE_CHECK_MS, planSweep } from '../../../src/sources/issues/plan-sweep.js';
import { BASE, emulated } from '../../github/emulated.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { memberIssue, useStateDir } from '../../helpers/world.js';

const stateDir = useStateDir('issueloop-plan-sweep-');
const START = Date.UTC(2026, 10, 21, 12, 0, 0);
const DAY = 24 * 3_600_000;

/** An issue whose plan was posted at START and waits for review (its claim says plan_review). */
async function waitingPlan() {
  const clock = new FakeClock(START, false);
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
  emulator.setPermission('maintainer', 'write');
  const issue = emulator.addIssue(memberIssue('Fix it', { labels: ['issueloop', PLAN_LABEL] }));
  const gh = await emulated(stateDir.path, { emulator });
  const claims = createMemoryClaimStore({ clock, maxFailures: 3 });
  const claimed = await claims.claim(issue, 'host:1', 60_000);
  if (!claimed.ok) throw new Error('not claimed');
  await claims.release(claimed.lease, { outcome: PLAN_REVIEW });
  const config = ConfigSchema.parse({});
  const redact = createRedactor([]);
  const planId = await gh.adapter.plans.post(
    issue,
    renderPlanComment({ issue, plan: 'Plan A', expiresMs: config.plan.expires, redact }),
  );
  const ledger: Array<[string, Record<string, unknown>]> = [];
  const sweep = commandSweep({ github: gh.adapter, redact, clock, config });
  const sweepRound = {
    round: 1,
    log: createMemoryLog(),
    claims,
    owner: 'host:1',
    ledger: {
      append: async (type: string, fields?: Record<string, unknown>) =>
        void ledger.push([type, fields ?? {}]),
    } as unknown as Ledger,
  };
  /** A round as the issue source runs one: the sweep, then its plan reads the records, then expiry. */
  const round = async () => {
    await sweep(sweepRound);
    sweep.seen(new Map((await claims.list()).map((view) => [view.issue, view])));
    await sweep.expire(sweepRound);
  };
  return { clock, emulator, issue, gh, claims, ledger, round, planId, sweepRound, redact, config };
}

describe('plan expiry (plan.expires) with the injected clock', () => {
  it('regression: expiry never overwrites an answer another runner booked meanwhile, nor marks its plan withdrawn', async () => {
    const { clock, emulator, issue, claims, ledger, round, planId } = await waitingPlan();
    clock.advance(14 * DAY + 60_000);
    // Between this sweep's read (plan_review) and its booking claim, another runner books the
    // writer's /approve.
    const claim = claims.claim.bind(claims);
    let raced = false;
    claims.claim = async (n, owner, ttl) => {
      if (!raced && owner === 'host:1') {
        raced = true;
        const other = await claim(n, 'host:2', 60_000);
        if (!other.ok) throw new Error('host:2 could not book');
        await claims.release(other.lease, { outcome: PLAN_APPROVED });
      }
      return claim(n, owner, ttl);
    };
    await round();

    expect(raced).toBe(true);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_APPROVED);
    const plan = emulator.comments(issue).find((c) => c.id === planId);
    expect(plan?.body).toContain('Plan A');
    expect(plan?.body).toContain('People with write access answer on this issue');
    expect(plan?.body).not.toContain('**Withdrawn**');
    expect(ledger.map(([type]) => type)).not.toContain('plan_withdrawn');
  });

  it('a plan unanswered for plan.expires is withdrawn: comment edited, skipped as plan_withdrawn; /issueloop plan asks again', async () => {
    const { clock, emulator, issue, gh, claims, ledger, round, planId } = await waitingPlan();
    clock.advance(14 * DAY - 60_000);
    await round();
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REVIEW);
    expect(await readPlanStage(gh.adapter, issue)).toEqual({ kind: 'plan' });

    // Expiry is looked for at most every EXPIRE_CHECK_MS (each look lists the whole claim store).
    clock.advance(120_000);
    await round();
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REVIEW);
    clock.advance(EXPIRE_CHECK_MS);
    await round();
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_WITHDRAWN);
    const edited = emulator.comments(issue).find((c) => c.id === planId);
    expect(edited?.body).toContain('**Withdrawn**: nobody answered within 14 days');
    expect(edited?.body).toContain('Plan A');
    expect(ledger.filter(([type]) => type === 'plan_withdrawn')).toEqual([
      ['plan_withdrawn', { round: 1, issue, comment: planId }],
    ]);

    // A writer's /approve of the withdrawn plan answers nothing; /issueloop plan asks for a new one.
    const late = emulator.addComment(issue, { author: 'maintainer', body: '/approve' });
    await round();
    expect(emulator.reactions(late)).toEqual([]);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_WITHDRAWN);
    const again = emulator.addComment(issue, { author: 'maintainer', body: '/issueloop plan' });
    await round();
    expect(emulator.reactions(again)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REQUESTED);
    expect(emulator.labelsOf(issue)).toContain(PLAN_LABEL);
  });

  it('a writer’s /revise after the plan is answered and read back as the next session’s request', async () => {
    const { emulator, issue, gh, claims, round } = await waitingPlan();
    const revise = emulator.addComment(issue, { author: 'maintainer', body: '/revise add a test\nplease' });
    await round();
    expect(emulator.reactions(revise)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect((await claims.get(issue))?.last_outcome).toBe('plan_revise');
    const stage = await readPlanStage(gh.adapter, issue);
    expect(stage).toEqual({ kind: 'revise', previous: 'Plan A', request: 'add a test\nplease' });
    expect(planNote(stage)).toContain('### What the maintainer asked to change\n\nadd a test\nplease');
  });
});

describe('a new runner (its state directory lost) and the plans answered before', () => {
  it('regression: an /approve a lost runner booked and 👍ed is booked again when the record says plan_review (it stayed waiting, then was withdrawn)', async () => {
    const { clock, emulator, issue, gh, claims, round } = await waitingPlan();
    const approve = emulator.addComment(issue, { author: 'maintainer', body: '/approve' });
    await round();
    expect(emulator.reactions(approve)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_APPROVED);

    // That runner is gone before it implemented the plan; a new one imports the tracking comment's
    // last outcome (plan_review: bookings are not in it) and sweeps with nothing decided yet.
    const claimed = await claims.claim(issue, 'host:2', 60_000);
    if (!claimed.ok) throw new Error('not claimed');
    await claims.release(claimed.lease, { outcome: PLAN_REVIEW });
    const fresh = commandSweep({
      github: gh.adapter,
      redact: createRedactor([]),
      clock,
      config: ConfigSchema.parse({}),
    });
    fresh.seen(new Map((await claims.list()).map((view) => [view.issue, view])));
    await fresh({
      round: 1,
      log: createMemoryLog(),
      claims,
      owner: 'host:2',
      ledger: { append: async () => undefined } as unknown as Ledger,
    });

    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_APPROVED);
    expect(await readPlanStage(gh.adapter, issue)).toEqual({ kind: 'approved', plan: 'Plan A' });
    // Still one 👍: the command was worked once.
    expect(emulator.reactions(approve)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
  });
});

describe('plan expiry when the comment cannot be edited', () => {
  it('regression: a plan whose comment could not be marked withdrawn keeps waiting, and the next look withdraws it', async () => {
    const { clock, emulator, issue, gh, claims, planId } = await waitingPlan();
    let refuse = true;
    const github = {
      ...gh.adapter,
      plans: {
        ...gh.adapter.plans,
        edit: async (n: number, id: number, body: string) => {
          if (refuse) throw new Error('502 Bad Gateway');
          return gh.adapter.plans.edit(n, id, body);
        },
      },
    };
    const sweep = planSweep({ github, clock, config: ConfigSchema.parse({}), redact: createRedactor([]) });
    const log = createMemoryLog();
    const round = {
      round: 1,
      log,
      claims,
      owner: 'host:1',
      ledger: { append: async () => undefined } as unknown as Ledger,
    };
    const look = async () => {
      sweep.seen(new Map((await claims.list()).map((view) => [view.issue, view])));
      await sweep.expire(round);
    };
    clock.advance(14 * DAY + 60_000);
    await look();
    expect(log.entries.some((e) => e.msg?.includes('could not check whether the plan expired'))).toBe(true);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REVIEW);
    expect(emulator.comments(issue).find((c) => c.id === planId)?.body).not.toContain('**Withdrawn**');

    refuse = false;
    clock.advance(EXPIRE_CHECK_MS);
    await look();
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_WITHDRAWN);
    expect(emulator.comments(issue).find((c) => c.id === planId)?.body).toContain('**Withdrawn**');
  });
});

describe('old approvals on a fresh runner (older than the command look-back)', () => {
  it('regression: an /approve 👍ed by another runner at day 1 is booked by a fresh runner at day 15, not withdrawn', async () => {
    const { clock, emulator, issue, gh, claims, planId } = await waitingPlan();
    clock.advance(DAY);
    // Another runner worked it (its 👍) and booked it; its state directory is gone since.
    const approve = emulator.addComment(issue, { author: 'maintainer', body: '/approve' });
    await gh.adapter.commands.react(approve, DONE_REACTION);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REVIEW);

    // Day 15: a fresh runner imports plan_review; its command sweep looks back 7 days only.
    clock.advance(14 * DAY);
    expect(
      clock.now() - Date.parse(emulator.comments(issue).find((c) => c.id === approve)?.updated_at ?? ''),
    ).toBeGreaterThan(COMMAND_LOOKBACK_MS);
    const ledger: string[] = [];
    const fresh = commandSweep({
      github: gh.adapter,
      redact: createRedactor([]),
      clock,
      config: ConfigSchema.parse({}),
    });
    const freshRound = {
      round: 1,
      log: createMemoryLog(),
      claims,
      owner: 'host:2',
      ledger: { append: async (type: string) => void ledger.push(type) } as unknown as Ledger,
    };
    await fresh(freshRound);
    fresh.seen(new Map((await claims.list()).map((view) => [view.issue, view])));
    await fresh.expire(freshRound);

    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_APPROVED);
    const plan = emulator.comments(issue).find((c) => c.id === planId);
    expect(plan?.body).toContain('Plan A');
    expect(plan?.body).not.toContain('**Withdrawn**');
    expect(ledger).not.toContain('plan_withdrawn');
    expect(await readPlanStage(gh.adapter, issue)).toEqual({ kind: 'approved', plan: 'Plan A' });
    expect(emulator.reactions(approve)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
  });
});

describe('planSweep', () => {
  it('an /approve with no plan waiting (the claim says otherwise) is not answered', async () => {
    const { emulator, issue, gh, claims, clock } = await waitingPlan();
    const claimed = await claims.claim(issue, 'host:1', 60_000);
    if (!claimed.ok) throw new Error('not claimed');
    await claims.release(claimed.lease, { outcome: 'verify_failed' });
    const id = emulator.addComment(issue, { author: 'maintainer', body: '/approve' });
    const comment = { id, number: issue, author: 'maintainer', body: '/approve', updatedAt: '' };
    const sweep = planSweep({
      github: gh.adapter,
      clock,
      config: ConfigSchema.parse({}),
      redact: createRedactor([]),
    });
    const round = { round: 1, log: createMemoryLog(), claims, owner: 'host:1', ledger: {} as Ledger };
    expect(await sweep.work(round, 'approve', comment, issue)).toBe(false);
    expect((await claims.get(issue))?.last_outcome).toBe('verify_failed');
  });
});

describe('which issues need a plan', () => {
  it('plan.required, or the issueloop:plan label', () => {
    const off = ConfigSchema.parse({});
    const on = ConfigSchema.parse({ plan: 'required' });
    expect(needsPlan({ labels: ['issueloop'] }, off)).toBe(false);
    expect(needsPlan({ labels: ['issueloop', PLAN_LABEL] }, off)).toBe(true);
    expect(needsPlan({ labels: ['issueloop'] }, on)).toBe(true);
  });
});

describe('plan expiry and an unreachable claim store', () => {
  it('regression: a claim store that cannot be read never fails the sweep (it failed the round); the store is never listed', async () => {
    const { clock, issue, gh, claims } = await waitingPlan();
    const log = createMemoryLog();
    const sweep = planSweep({
      github: gh.adapter,
      clock,
      config: ConfigSchema.parse({}),
      redact: createRedactor([]),
    });
    let reads = 0;
    const broken = {
      ...claims,
      list: async () => {
        throw new Error('list: the sweep reads waiting plans only');
      },
      get: async () => {
        reads += 1;
        throw new Error('connect ECONNREFUSED 127.0.0.1:6390');
      },
    };
    const round = { round: 1, log, claims: broken, owner: 'host:1', ledger: {} as unknown as Ledger };
    clock.advance(15 * DAY);
    // Before a round's plan said which plans wait, there is nothing to look at.
    await sweep.expire(round);
    expect(reads).toBe(0);
    sweep.seen(new Map([[issue, { ...(await claims.get(issue)), needs_human: false } as never]]));
    await expect(sweep.expire(round)).resolves.toBeUndefined();
    expect(reads).toBe(1);
    expect(log.entries.some((e) => e.msg?.includes('could not check whether the plan expired'))).toBe(true);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REVIEW);
  });
});

describe("plan expiry in a process's first round", () => {
  it("regression: a one-round run withdraws an expired plan (expiry ran in the sweep, before the round's plan said which plans wait)", async () => {
    const { clock, emulator, issue, gh, claims, sweepRound, redact, config, planId } = await waitingPlan();
    clock.advance(15 * DAY);
    const source = createIssueSource({
      github: gh.adapter,
      config,
      redact,
      checkout: '/nonexistent',
      remote: 'origin',
      baseBranch: 'main',
      log: createMemoryLog(),
      clock,
    });
    // One round of a fresh process: the sweep, then the plan over the store's records.
    await source.sweep?.(sweepRound);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REVIEW);
    const issues = (await gh.adapter.listBacklog()).issues;
    const records = new Map((await claims.list()).map((view) => [view.issue, view]));
    await source.plan(issues, records, {
      round: 1,
      now: clock.now(),
      log: sweepRound.log,
      store: claims,
      ledger: sweepRound.ledger,
    });
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_WITHDRAWN);
    expect(emulator.comments(issue).find((c) => c.id === planId)?.body).toContain('**Withdrawn**');
  });
});
