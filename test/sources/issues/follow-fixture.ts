import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createMemoryClaimStore } from '../../../src/claims/memory-claim-store.js';
import { createRedactor } from '../../../src/core/redact.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { renderFollowUp } from '../../../src/sources/issues/follow-up.js';
import { followPulls } from '../../../src/sources/issues/pull-follow.js';
import { emulated } from '../../github/emulated.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog, type LogEntry } from '../../helpers/memory-log.js';

/**
 * An issue issueloop resolved, with its draft PR open on `issueloop/issue-<n>` in the GitHub
 * emulator (in process, no network), and `sweep()`: one sweep of the run's PR follower, returning
 * the follow-up it would start (if any), that follow-up's part of the first message, and what went
 * to the ledger and the log. Call at the top of a test file: it registers the state directory's hooks.
 */
export function useFollowFixture() {
  let stateDir = '';
  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'issueloop-follow-'));
  });
  afterEach(async () => {
    await rm(stateDir, { recursive: true, force: true });
  });

  return async function resolvedPull(config: Record<string, unknown> = {}) {
    const gh = await emulated(stateDir, { config });
    const { emulator } = gh;
    const issue = emulator.addIssue({
      title: 'Fix the greeting',
      body: 'please',
      author: 'octocat',
      authorAssociation: 'MEMBER',
      labels: ['issueloop'],
    });
    const clock = new FakeClock(Date.UTC(2026, 10, 25));
    const claims = createMemoryClaimStore({ clock, maxFailures: 3 });
    const claimed = await claims.claim(issue, 'host:1', 60_000);
    if (!claimed.ok) throw new Error('setup: claim refused');
    await claims.release(claimed.lease, { outcome: 'resolved' });
    const branch = `issueloop/issue-${issue}`;
    const pr = await gh.adapter.pulls.openOrUpdate({
      branch,
      title: 'Fix the greeting',
      body: `Closes #${issue}`,
      base: 'main',
    });
    const log: LogEntry[] = [];
    const ledger: Array<[string, Record<string, unknown>]> = [];

    /** A new follower each time (a new run): nothing it read before is cached. */
    async function sweep() {
      const follower = followPulls({
        github: gh.adapter,
        config: gh.config,
        redact: createRedactor([]),
        checkout: stateDir,
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
    return { gh, emulator, issue, pr, branch, claims, sweep, log, ledger };
  };
}
