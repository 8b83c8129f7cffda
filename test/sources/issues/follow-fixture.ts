import { createRedactor } from '../../../src/core/redact.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { renderFollowUp } from '../../../src/sources/issues/follow-up.js';
import { followPulls } from '../../../src/sources/issues/pull-follow.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { resolvedPullWorld, useStateDir } from '../../helpers/world.js';

/**
 * An issue issueloop resolved, with its draft PR open on `issueloop/issue-<n>` in the GitHub
 * emulator (in process, no network), and `sweep()`: one sweep of the run's PR follower, returning
 * the follow-up it would start (if any), that follow-up's part of the first message, and what went
 * to the ledger and the log. Call at the top of a test file: it registers the state directory's hooks.
 */
export function useFollowFixture() {
  const stateDir = useStateDir('issueloop-follow-');

  return async function resolvedPull(config: Record<string, unknown> = {}) {
    const world = await resolvedPullWorld(stateDir.path, { config });
    const { gh, issue, claims, clock, ledger, log } = world;

    /** A new follower each time (a new run): nothing it read before is cached. */
    async function sweep() {
      const follower = followPulls({
        github: gh.adapter,
        config: gh.config,
        redact: createRedactor([]),
        checkout: stateDir.path,
        remote: 'origin',
        baseBranch: 'main',
        log: createMemoryLog(log),
        clock,
      });
      const append: Ledger['append'] = async (type, fields) => void ledger.push([type, fields ?? {}]);
      await follower.sweep({
        round: 1,
        log: createMemoryLog(log),
        claims,
        owner: 'host:2',
        ledger: { append } as unknown as Ledger,
      });
      const followUp = follower.takeFollowUp(issue);
      return { followUp, message: followUp ? renderFollowUp(followUp) : '' };
    }
    return { ...world, sweep };
  };
}
