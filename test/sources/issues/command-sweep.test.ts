import { describe, expect, it } from 'vitest';
import { createMemoryClaimStore } from '../../../src/claims/memory-claim-store.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createRedactor } from '../../../src/core/redact.js';
import { createGitHubEmulator } from '../../../src/emulators/github/index.js';
import { parseCommand } from '../../../src/github/comment-commands.js';
import { NEEDS_HUMAN_LABEL } from '../../../src/github/labels.js';
import type { Ledger } from '../../../src/session/ledger.js';
import { commandSweep } from '../../../src/sources/issues/command-sweep.js';
import { BASE, emulated } from '../../github/emulated.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { memberIssue, useStateDir } from '../../helpers/world.js';

const stateDir = useStateDir('issueloop-commands-');
const START = Date.UTC(2026, 10, 21, 12, 0, 0);

/** An issue that failed three times (needs a human, labelled so), a writer and an outsider. */
async function commandWorld() {
  const clock = new FakeClock(START, false);
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
  emulator.setPermission('maintainer', 'write');
  emulator.setPermission('drive-by', 'read');
  const issue = emulator.addIssue(memberIssue());
  emulator.labelIssue(issue, NEEDS_HUMAN_LABEL, 'issueloop-bot');
  const gh = await emulated(stateDir.path, { emulator });
  const claims = createMemoryClaimStore({ clock, maxFailures: 3 });
  for (let i = 0; i < 3; i++)
    await claims.recordFailure(issue, { errorClass: 'verify_failed', message: 'red' });
  const ledger: Array<[string, Record<string, unknown>]> = [];
  const sweep = commandSweep({
    github: gh.adapter,
    redact: createRedactor([]),
    clock,
    config: ConfigSchema.parse({}),
  });
  const round = (n = 1) =>
    sweep({
      round: n,
      log: createMemoryLog(),
      claims,
      owner: 'host:1',
      ledger: {
        append: async (type: string, fields?: Record<string, unknown>) =>
          void ledger.push([type, fields ?? {}]),
      } as unknown as Ledger,
    });
  const comment = (author: string, body: string, on = issue) => {
    clock.advance(1_000);
    return emulator.addComment(on, { author, body });
  };
  return { clock, emulator, issue, gh, claims, ledger, round, comment };
}

describe('parseCommand', () => {
  it('reads the first non-blank line, in any case, with trailing blanks', () => {
    expect(parseCommand('/issueloop retry')).toBe('retry');
    expect(parseCommand('\n  \n/IssueLoop STOP  \r\nbecause it is wrong')).toBe('stop');
  });

  it('anything else on the line, or the command further down, is not a command', () => {
    expect(parseCommand('/issueloop retry')).toBe('retry');
    expect(parseCommand('/issueloop retry please')).toBeUndefined();
    expect(parseCommand('please\n/issueloop stop')).toBeUndefined();
    expect(parseCommand('  /issueloop stop')).toBeUndefined();
  });
});

describe('commands in comments', () => {
  it("a writer's retry on a needs-human issue: failures cleared, label off, a 👍, in the ledger", async () => {
    const { emulator, issue, claims, ledger, round, comment } = await commandWorld();
    expect((await claims.get(issue))?.needs_human).toBe(true);
    const id = comment('maintainer', '/issueloop retry');
    await round();
    expect((await claims.get(issue))?.needs_human).toBe(false);
    expect((await claims.get(issue))?.failure_count).toBe(0);
    expect(emulator.labelsOf(issue)).not.toContain(NEEDS_HUMAN_LABEL);
    expect(emulator.labelsOf(issue)).toContain('issueloop');
    expect(emulator.reactions(id)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect(ledger).toContainEqual([
      'command',
      { round: 1, issue, command: 'retry', comment: id, by: 'maintainer' },
    ]);
  });

  it("a writer's stop: the lease released, the issue labelled needs-human, answered", async () => {
    const { emulator, issue, claims, round, comment } = await commandWorld();
    emulator.unlabelIssue(issue, NEEDS_HUMAN_LABEL, 'maintainer');
    await claims.resetFailures(issue);
    const held = await claims.claim(issue, 'host:other', 60_000);
    expect(held.ok).toBe(true);
    const id = comment('maintainer', '/issueloop stop');
    await round();
    expect((await claims.get(issue))?.lease).toBeNull();
    expect(emulator.labelsOf(issue)).toContain(NEEDS_HUMAN_LABEL);
    expect(emulator.reactions(id)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    // The label keeps it out of the backlog (exclude_labels' default).
    const { gh } = await commandWorldBacklog(emulator);
    expect((await gh.adapter.listBacklog()).skipped).toContainEqual({
      number: issue,
      reason: `label ${NEEDS_HUMAN_LABEL}`,
    });
  });

  it("an outsider's command is ignored and not answered", async () => {
    const { emulator, issue, claims, ledger, round, comment } = await commandWorld();
    const outsider = comment('drive-by', '/issueloop retry');
    const writer = comment('maintainer', 'looks hard');
    await round();
    expect((await claims.get(issue))?.needs_human).toBe(true);
    expect(emulator.labelsOf(issue)).toContain(NEEDS_HUMAN_LABEL);
    expect(emulator.reactions(outsider)).toEqual([]);
    expect(emulator.reactions(writer)).toEqual([]);
    expect(ledger.filter(([type]) => type === 'command')).toEqual([]);
    // The anchor: the same command from a writer is worked.
    const worked = comment('maintainer', '/issueloop retry');
    await round(2);
    expect(emulator.reactions(worked)).toHaveLength(1);
    expect(emulator.labelsOf(issue)).not.toContain(NEEDS_HUMAN_LABEL);
  });

  it("issueloop's own comment commands nothing, though its account may write (it could quote text the agent wrote)", async () => {
    const { emulator, issue, ledger, round, comment } = await commandWorld();
    emulator.setPermission('issueloop-bot', 'write');
    const own = comment('issueloop-bot', '/issueloop retry');
    await round();
    expect(emulator.labelsOf(issue)).toContain(NEEDS_HUMAN_LABEL);
    expect(emulator.reactions(own)).toEqual([]);
    expect(ledger.filter(([type]) => type === 'command')).toEqual([]);
    // The anchor: a maintainer's is worked.
    const worked = comment('maintainer', '/issueloop retry');
    await round(2);
    expect(emulator.reactions(worked)).toHaveLength(1);
  });

  it('the same comment is not worked twice, neither by this run nor by a fresh one (the 👍 says so)', async () => {
    const { emulator, issue, gh, claims, ledger, round, comment, clock } = await commandWorld();
    comment('maintainer', '/issueloop retry');
    await round();
    expect(ledger.filter(([type]) => type === 'command')).toHaveLength(1);
    // The issue fails again to needs-human; the old retry must not lift it.
    for (let i = 0; i < 3; i++)
      await claims.recordFailure(issue, { errorClass: 'verify_failed', message: 'red' });
    emulator.labelIssue(issue, NEEDS_HUMAN_LABEL, 'issueloop-bot');
    await round(2);
    const fresh = commandSweep({
      github: await gh.reopen(),
      redact: createRedactor([]),
      clock,
      config: ConfigSchema.parse({}),
    });
    await fresh({
      round: 1,
      log: createMemoryLog(),
      claims,
      owner: 'host:2',
      ledger: { append: async () => {} } as unknown as Ledger,
    });
    expect((await claims.get(issue))?.needs_human).toBe(true);
    expect(emulator.labelsOf(issue)).toContain(NEEDS_HUMAN_LABEL);
    expect(ledger.filter(([type]) => type === 'command')).toHaveLength(1);
  });

  it("a command on issueloop's PR works its issue; on another PR it is ignored", async () => {
    const { emulator, issue, gh, claims, round, comment } = await commandWorld();
    const openPull = async (head: string) =>
      (
        await gh.client.rest.pulls.create({
          owner: 'octo-org',
          repo: 'widgets',
          head,
          base: 'main',
          title: head,
        })
      ).data.number;
    const own = await openPull(`issueloop/issue-${issue}`);
    const other = await openPull('feature/x');
    const elsewhere = comment('maintainer', '/issueloop retry', other);
    await round();
    expect(emulator.reactions(elsewhere)).toEqual([]);
    expect((await claims.get(issue))?.needs_human).toBe(true);
    const onPull = comment('maintainer', '/issueloop retry', own);
    await round(2);
    expect(emulator.reactions(onPull)).toHaveLength(1);
    expect((await claims.get(issue))?.needs_human).toBe(false);
  });

  it("review32: a command on a fork's PR with issueloop's branch name (head repository gone) is ignored", async () => {
    const { emulator, issue, gh, claims, round, comment } = await commandWorld();
    const pull = async (head: string) =>
      (
        await gh.client.rest.pulls.create({
          owner: 'octo-org',
          repo: 'widgets',
          head,
          base: 'main',
          title: head,
        })
      ).data.number;
    // The emulator's PR has no head repository, as GitHub's once the fork is deleted: only the label says whose.
    const forked = await pull(`forker:issueloop/issue-${issue}`);
    const onFork = comment('maintainer', '/issueloop retry', forked);
    await round();
    expect(emulator.reactions(onFork)).toEqual([]);
    expect((await claims.get(issue))?.needs_human).toBe(true);
    // The anchor: the same branch of this repository is issueloop's.
    const own = await pull(`issueloop/issue-${issue}`);
    const onOwn = comment('maintainer', '/issueloop retry', own);
    await round(2);
    expect(emulator.reactions(onOwn)).toHaveLength(1);
    expect((await claims.get(issue))?.needs_human).toBe(false);
  });

  it("an idle round's comment read is a 304", async () => {
    const { emulator, round, comment } = await commandWorld();
    comment('maintainer', 'a remark');
    await round();
    await round(2);
    emulator.resetRequests();
    await round(3);
    const reads = emulator.requests.filter((r) => r.path.includes('/issues/comments'));
    expect(reads).toHaveLength(1);
    expect(reads[0]?.status).toBe(304);
    expect(emulator.chargedCount()).toBe(0);
  });
});

async function commandWorldBacklog(emulator: ReturnType<typeof createGitHubEmulator>) {
  return { gh: await emulated(`${stateDir.path}/second`, { emulator }) };
}
