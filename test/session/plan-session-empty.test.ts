import { describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { planMarker } from '../../src/github/plan-comment.js';
import { emulated } from '../github/emulated.js';
import { runIssueSession } from '../helpers/world.js';
import { GREETING_TYPO, useSessionRepo } from './git/git-fixture.js';

const repo = useSessionRepo(GREETING_TYPO);

/** A plan session on the native engine whose model ends its turn with `text`. */
async function planSession(text: string) {
  const gh = await emulated(repo.stateDir, {
    config: { verify: { command: 'true' }, plan: { required: true } },
  });
  const ran = await runIssueSession({ repo, gh }, { script: () => reply.text(text) });
  const plans = gh.emulator.comments(ran.number).filter((c) => c.body.startsWith(planMarker(ran.number)));
  return { report: ran.report, plans };
}

describe('a native plan session’s final text (issue 32 item 2)', () => {
  it('regression: an empty final text ends the session as no_changes with a reason, and no blank plan comment is posted', async () => {
    const { report, plans } = await planSession('  ');
    expect(report.outcome).toBe('no_changes');
    expect(report.reason).toBe('the plan session ended without a plan (its final message was empty)');
    expect(plans).toEqual([]);
  });

  it('a plan in the final text is posted for review (the anchor)', async () => {
    const { report, plans } = await planSession('Plan: change greet.js; check with its test.');
    expect(report.outcome).toBe('plan_review');
    expect(plans.map((c) => c.body)).toEqual([
      expect.stringContaining('Plan: change greet.js; check with its test.'),
    ]);
  });
});
