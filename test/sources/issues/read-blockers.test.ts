import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubEmulator } from '../../../src/emulators/github/index.js';
import { readBlockers } from '../../../src/sources/issues/issue-source.js';
import { createTempStateDirs } from '../../claims/temp-state-dirs.js';
import { BASE, emulated } from '../../github/emulated.js';

const dirs = createTempStateDirs();
afterEach(() => dirs.cleanup());

/** A blocker in the backlog, and an issue whose body says it waits for it, written by `author`. */
async function blockedBy(author: string, labeledBy: string) {
  const emulator = createGitHubEmulator({ baseUrl: BASE });
  const e = await emulated(await dirs.make(), { config: { trusted_authors: ['release-bot'] }, emulator });
  emulator.addUser('drive-by');
  emulator.addUser('release-bot');
  const blocker = emulator.addIssue({
    title: 'blocker',
    author: 'octocat',
    authorAssociation: 'MEMBER',
    labels: ['issueloop'],
  });
  const blocked = emulator.addIssue({
    title: 'waits',
    body: `Blocked by #${blocker}`,
    author,
    authorAssociation: 'NONE',
    labels: ['issueloop'],
    labeledBy,
  });
  const { issues } = await e.adapter.listBacklog();
  const trust = await e.adapter.trustGate().checkAll(issues);
  const found = await readBlockers(e.adapter, issues, issues, trust, new Set());
  return { blocked, blocker, trust, found };
}

describe('Blocked by lines and who vouched', () => {
  it('a trusted_authors login’s own issue: its Blocked by line blocks it', async () => {
    const { blocked, blocker, trust, found } = await blockedBy('release-bot', 'release-bot');
    expect(trust.get(blocked)).toMatchObject({ trusted: true, reason: 'trusted_author', by: 'release-bot' });
    expect(found.get(blocked)).toEqual([{ ref: `#${blocker}`, state: 'open' }]);
  });

  it('review32: an outsider’s issue labelled by a trusted_authors login: its body lines block nothing', async () => {
    const { blocked, trust, found } = await blockedBy('drive-by', 'release-bot');
    // Workable (the label vouches for whom to work on) with the same reason as an author's own...
    expect(trust.get(blocked)).toMatchObject({ trusted: true, reason: 'trusted_author', by: 'release-bot' });
    // ...but the outsider's text does not decide what it waits for.
    expect(found.has(blocked)).toBe(false);
    expect(found.size).toBe(0);
  });
});
