import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createRedactor } from '../../../src/core/redact.js';
import { PLAN_LABEL } from '../../../src/github/labels.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { commandSweep } from '../../../src/sources/issues/command-sweep.js';
import {
  PLAN_APPROVED,
  PLAN_REQUESTED,
  PLAN_REVIEW,
  PLAN_WITHDRAWN,
} from '../../../src/sources/issues/plan-outcomes.js';
import { needsPlan, planNote, readPlanStage } from '../../../src/sources/issues/plan-stage.js';
import { EXPIRE_CHECK_MS, planSweep } from '../../../src/sources/issues/plan-sweep.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { useStateDir } from '../../helpers/world.js';

import { DAY, waitingPlan } from './waiting-plan.js';

const stateDir = useStateDir('issueloop-plan-sweep-');

describe('plan expiry (plan.expires) with the injected clock', () => {
  it('regression: expiry never overwrites an answer another runner booked meanwhile, nor marks its plan withdrawn', async () => {
    const { clock, emulator, issue, claims, ledger, round, planId } = await waitingPlan(stateDir.path);
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
    const { clock, emulator, issue, gh, claims, ledger, round, planId } = await waitingPlan(stateDir.path);
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
    const { emulator, issue, gh, claims, round } = await waitingPlan(stateDir.path);
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
    const { clock, emulator, issue, gh, claims, round } = await waitingPlan(stateDir.path);
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

describe('planSweep', () => {
  it('an /approve with no plan waiting (the claim says otherwise) is not answered', async () => {
    const { emulator, issue, gh, claims, clock } = await waitingPlan(stateDir.path);
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
