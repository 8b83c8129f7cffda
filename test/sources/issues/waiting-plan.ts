import { createMemoryClaimStore } from '../../../src/claims/memory-claim-store.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createRedactor } from '../../../src/core/redact.js';
import { createGitHubEmulator } from '../../../src/emulators/github/index.js';
import { PLAN_LABEL } from '../../../src/github/labels.js';
import { renderPlanComment } from '../../../src/github/plan-comment.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { commandSweep } from '../../../src/sources/issues/command-sweep.js';
import { PLAN_REVIEW } from '../../../src/sources/issues/plan-outcomes.js';
import { BASE, emulated } from '../../github/emulated.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { memberIssue } from '../../helpers/world.js';

export const START = Date.UTC(2026, 10, 21, 12, 0, 0);
export const DAY = 24 * 3_600_000;

/**
 * An issue whose plan was posted at START and waits for review (its claim says plan_review), its
 * GitHub state kept under `stateDir` (each test file's own `useStateDir`).
 */
export async function waitingPlan(stateDir: string) {
  const clock = new FakeClock(START, false);
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
  emulator.setPermission('maintainer', 'write');
  const issue = emulator.addIssue(memberIssue('Fix it', { labels: ['issueloop', PLAN_LABEL] }));
  const gh = await emulated(stateDir, { emulator });
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
