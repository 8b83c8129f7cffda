import { describe, expect, it } from 'vitest';
import { createMemoryClaimStore } from '../../../src/claims/memory-claim-store.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createRedactor } from '../../../src/core/redact.js';
import { createGitHubEmulator } from '../../../src/emulators/github/index.js';
import { PLAN_LABEL } from '../../../src/github/labels.js';
import { renderPlanComment } from '../../../src/github/plan-comment.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { commandSweep } from '../../../src/sources/issues/command-sweep.js';
import {
  PLAN_APPROVED,
  PLAN_REQUESTED,
  PLAN_REVIEW,
  PLAN_REVISE,
} from '../../../src/sources/issues/plan-outcomes.js';
import { BASE, emulated } from '../../github/emulated.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { memberIssue, useStateDir } from '../../helpers/world.js';

const stateDir = useStateDir('issueloop-plan-held-');
const START = Date.UTC(2026, 10, 21, 12, 0, 0);
const SESSION = 'runner-b:7';

/**
 * An issue whose plan session (another runner's) holds it: its claim says `before` and the session
 * has just posted its plan, not yet released the issue. `round()` is one of this runner's sweeps.
 */
async function heldWhilePlanning(before: string) {
  const clock = new FakeClock(START, false);
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
  emulator.setPermission('maintainer', 'write');
  const issue = emulator.addIssue(memberIssue('Fix it', { labels: ['issueloop', PLAN_LABEL] }));
  const gh = await emulated(stateDir.path, { emulator });
  const claims = createMemoryClaimStore({ clock, maxFailures: 3 });
  const booked = await claims.claim(issue, 'host:1', 60_000);
  if (!booked.ok) throw new Error('not claimed');
  await claims.release(booked.lease, { outcome: before });
  const session = await claims.claim(issue, SESSION, 30 * 60_000);
  if (!session.ok) throw new Error('not claimed');
  const config = ConfigSchema.parse({});
  const redact = createRedactor([]);
  await gh.adapter.plans.post(
    issue,
    renderPlanComment({ issue, plan: 'Plan A', expiresMs: config.plan.expires, redact }),
  );
  const sweep = commandSweep({ github: gh.adapter, redact, clock, config });
  const log = createMemoryLog();
  const round = async () => {
    sweep.seen(new Map((await claims.list()).map((view) => [view.issue, view])));
    await sweep({
      round: 1,
      log,
      claims,
      owner: 'host:1',
      ledger: { append: async () => undefined } as unknown as Ledger,
    });
  };
  const endSession = () => claims.release(session.lease, { outcome: PLAN_REVIEW });
  return { clock, emulator, issue, claims, round, log, endSession };
}

const warnings = (log: ReturnType<typeof createMemoryLog>) =>
  log.entries.filter((e) => e.level === 'warn').map((e) => e.msg);

describe('a plan command while a session holds the issue', () => {
  it('regression: an /approve written while the plan session still holds the issue waits with a warning and is answered once the lease ends', async () => {
    const { emulator, issue, claims, round, log, endSession } = await heldWhilePlanning(PLAN_REQUESTED);
    const approve = emulator.addComment(issue, { author: 'maintainer', body: '/approve' });

    await round();
    expect(emulator.reactions(approve)).toEqual([]);
    expect((await claims.get(issue))?.lease?.owner).toBe(SESSION);
    expect(warnings(log)).toEqual([
      `/approve from maintainer waits for the session holding #${issue} (${SESSION}); it is answered once that session ends`,
    ]);

    // The plan session ends (its plan waits for review): the next round answers the /approve.
    await endSession();
    await round();
    expect(emulator.reactions(approve)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_APPROVED);
    expect(warnings(log)).toHaveLength(1);
  });

  it('a /revise while another runner holds a waiting plan’s issue: the same warning, then answered', async () => {
    const { emulator, issue, claims, round, log, endSession } = await heldWhilePlanning(PLAN_REVIEW);
    const revise = emulator.addComment(issue, { author: 'maintainer', body: '/revise add a test' });

    await round();
    await round();
    expect(emulator.reactions(revise)).toEqual([]);
    expect(warnings(log)).toEqual([
      expect.stringContaining(`/revise from maintainer waits for the session holding #${issue}`),
      expect.stringContaining(`/revise from maintainer waits for the session holding #${issue}`),
    ]);

    await endSession();
    await round();
    expect(emulator.reactions(revise)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect((await claims.get(issue))?.last_outcome).toBe(PLAN_REVISE);
  });
});
