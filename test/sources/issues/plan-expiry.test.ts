import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createRedactor } from '../../../src/core/redact.js';
import { DONE_REACTION } from '../../../src/github/comment-commands.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { COMMAND_LOOKBACK_MS, commandSweep } from '../../../src/sources/issues/command-sweep.js';
import { createIssueSource } from '../../../src/sources/issues/issue-source.js';
import { PLAN_APPROVED, PLAN_REVIEW, PLAN_WITHDRAWN } from '../../../src/sources/issues/plan-outcomes.js';
import { readPlanStage } from '../../../src/sources/issues/plan-stage.js';
import { EXPIRE_CHECK_MS, planSweep } from '../../../src/sources/issues/plan-sweep.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { useStateDir } from '../../helpers/world.js';

import { DAY, waitingPlan } from './waiting-plan.js';

const stateDir = useStateDir('issueloop-plan-expiry-');

describe('plan expiry when the comment cannot be edited', () => {
  it('regression: a plan whose comment could not be marked withdrawn keeps waiting, and the next look withdraws it', async () => {
    const { clock, emulator, issue, gh, claims, planId } = await waitingPlan(stateDir.path);
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
    const { clock, emulator, issue, gh, claims, planId } = await waitingPlan(stateDir.path);
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

describe('plan expiry and an unreachable claim store', () => {
  it('regression: a claim store that cannot be read never fails the sweep (it failed the round); the store is never listed', async () => {
    const { clock, issue, gh, claims } = await waitingPlan(stateDir.path);
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
    const { clock, emulator, issue, gh, claims, sweepRound, redact, config, planId } = await waitingPlan(
      stateDir.path,
    );
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
