import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryOutcomeStore } from '../../src/claims/file-outcome-store.js';
import { readStatus, renderStatus } from '../../src/cli/commands/status.js';
import {
  createAnthropicEmulator,
  type ParsedMessagesRequest,
  reply,
} from '../../src/emulators/anthropic/index.js';
import { BEST_OF_N_LABEL } from '../../src/github/labels.js';
import { parseSessionsLine } from '../../src/github/tracked-sessions.js';
import { renderRunSummary } from '../../src/run/run-summary.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { readLedger } from '../../src/session/ledger.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { until } from '../helpers/until.js';
import { LONG_LEASE, member, roundsFixture } from './rounds-fixture.js';

/**
 * Issue 32 item 1, "the scheduler counts a multi-attempt claim as the workers it uses": a best-of-N
 * claim takes min(N, free workers) worker slots. Every session's first model call is held at the
 * gate, so the test sees which sessions are in flight at once (a session is in flight from its first
 * call to its second, the one that answers its tool result: its slot is still held then).
 */
const { setup } = roundsFixture();

const VERIFY = 'grep -q "\'hello\'" greet.js';
/** Attempt 2 of the best-of-N issue passes verify; a single claim (no `-a<k>` branch) does too. */
const WORDS: Readonly<Record<string, string>> = { '1': 'hallo', '2': 'hello', '3': 'hullo' };

/** `issueloop/issue-<n>` or `issueloop/issue-<n>-a<k>`: the session a request belongs to. */
function sessionOf(request: Pick<ParsedMessagesRequest, 'system'>): string | undefined {
  return /issueloop\/issue-\d+(?:-a\d)?/.exec(JSON.stringify(request.system))?.[0];
}

function script(request: ParsedMessagesRequest) {
  if (request.messages.length > 1) return reply.text('Done.');
  const attempt = /-a(\d)$/.exec(sessionOf(request) ?? '')?.[1];
  const word = attempt === undefined ? 'hello' : (WORDS[attempt] ?? 'hallo');
  return reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: `'${word}'` },
    },
  ]);
}

/** Holds each session's first model call until the test releases it; counts sessions in flight. */
function heldSessions(hold = true) {
  const held = new Map<string, () => void>();
  const started = new Set<string>();
  const ended = new Set<string>();
  let most = 0;
  const gate = async (body: string) => {
    const request = JSON.parse(body) as ParsedMessagesRequest;
    const session = sessionOf(request);
    if (session === undefined) return;
    if (request.messages.length > 1) {
      ended.add(session);
      return;
    }
    started.add(session);
    most = Math.max(most, started.size - ended.size);
    if (!hold) return;
    await new Promise<void>((resolve) => held.set(session, resolve));
  };
  const release = (session: string) => {
    const resolve = held.get(session);
    if (!resolve) throw new Error(`${session} is not held`);
    held.delete(session);
    resolve();
  };
  return {
    gate,
    release,
    releaseAll: () => {
      for (const session of [...held.keys()]) release(session);
    },
    held: () => [...held.keys()].sort(),
    inFlight: () => started.size - ended.size,
    most: () => most,
  };
}

async function twoIssues(workers: number, hold = true) {
  const fixture = await setup({
    ...LONG_LEASE,
    workers,
    verify: { command: VERIFY, retries: 0 },
    attempts: { n: 3 },
  });
  const { gh, ctx, newSource } = fixture;
  const first = gh.emulator.addIssue(
    member('Fix the greeting typo', { labels: ['issueloop', BEST_OF_N_LABEL] }),
  );
  const second = gh.emulator.addIssue(member('Another greeting fix'));
  const sessions = heldSessions(hold);
  const anthropic = createAnthropicEmulator({ script });
  const models = emulatedModels(
    {
      ...anthropic,
      fetch: async (input, init) => {
        await sessions.gate(String(init?.body ?? ''));
        return anthropic.fetch(input, init);
      },
    },
    ctx.deps,
    ctx.redact,
  );
  const claimsOf = async () => {
    await ctx.ledger.flush();
    const { events } = await readLedger(ctx.ledger.file);
    return events.filter((e) => e.type === 'claim').map((e) => e.issue);
  };
  const outcomes = createMemoryOutcomeStore();
  const source = newSource({ outcomes });
  const run = runRounds({ ...ctx, source, models }, { owner: 'host:1', maxRounds: 4 });
  return { ...fixture, first, second, sessions, run, claimsOf, outcomes };
}

describe('a best-of-N claim takes min(N, free workers) worker slots (issue 32 item 1)', () => {
  it('workers 2, N 3: the claim holds both workers, so no other issue starts; its attempts run at most 2 at a time', {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx, first, second, sessions, run, claimsOf } = await twoIssues(2);
    const a = (k: number) => `issueloop/issue-${first}-a${k}`;

    // The first round claimed the best-of-N issue alone: its two attempts hold both workers.
    await until(() => sessions.held().length === 2);
    expect(sessions.inFlight()).toBe(2);
    expect(await claimsOf()).toEqual([first]);
    expect(sessions.held()).toEqual([a(1), a(2)]);

    // One attempt ends: its slot goes to the third attempt, not to the other issue.
    sessions.release(a(1));
    await until(() => sessions.held().includes(a(3)));
    expect(sessions.held()).toEqual([a(2), a(3)]);
    expect(await claimsOf()).toEqual([first]);

    sessions.releaseAll();
    // The other issue is worked only once the claim gave its workers back.
    await until(() => sessions.held().includes(`issueloop/issue-${second}`));
    sessions.releaseAll();
    const result = await run;

    expect(sessions.most()).toBe(2);
    expect(await claimsOf()).toEqual([first, second]);
    expect(result.reports.map((r) => [r.issue, r.outcome])).toEqual([
      [first, 'resolved'],
      [second, 'resolved'],
    ]);
    expect(result.reports[0]?.reason).toContain('chosen from 3 attempts');

    // The tracking comment and the run summary name the attempts (issue 32 item 1's loose ends).
    const chosen = 'best of 3: attempt 2 chosen (the only attempt that passed verify)';
    const comment =
      gh.emulator.comments(first).find((c) => c.body.includes('issueloop:tracking'))?.body ?? '';
    expect(comment.split('\n')).toContain(`| Attempts | ${chosen} |`);
    const other = gh.emulator.comments(second).find((c) => c.body.includes('issueloop:tracking'))?.body ?? '';
    expect(other).toContain('| Phase |');
    expect(other).not.toContain('| Attempts |');
    const summary = renderRunSummary(result, undefined, ctx.ledger.file);
    expect(summary).toContain(`${result.reports[0]?.pr?.url} · ${chosen}`);
    // `issueloop status` reads the run's ledger: the issue's line says best of 3, its attempts are sessions.
    const status = await readStatus(dirname(dirname(ctx.ledger.file)), [], 0);
    expect(status.lastRun?.issues.map((i) => [i.issue, i.sessions, i.bestOf])).toEqual([
      [first, 3, { n: 3, ran: 3, winner: 2 }],
      [second, 1, undefined],
    ]);
    expect(renderStatus(status, 0)).toContain('(best of 3: attempt 2 chosen; 3 sessions)');
  });

  it('workers 4, N 3: the claim takes three workers and one more issue is worked alongside', {
    timeout: 30_000,
  }, async () => {
    const { first, second, sessions, run, claimsOf } = await twoIssues(4);
    const a = (k: number) => `issueloop/issue-${first}-a${k}`;

    await until(() => sessions.held().length === 4);
    expect(sessions.held()).toEqual([a(1), a(2), a(3), `issueloop/issue-${second}`].sort());
    expect(await claimsOf()).toEqual([first, second]);

    sessions.releaseAll();
    const result = await run;
    expect(sessions.most()).toBe(4);
    expect(result.reports.map((r) => [r.issue, r.outcome]).sort()).toEqual([
      [first, 'resolved'],
      [second, 'resolved'],
    ]);
  });

  it("bug: a best-of-N claim's attempts end at one instant, and its tracking comment listed only one of them (a fresh store imported one attempt's dollars)", {
    timeout: 30_000,
  }, async () => {
    const { gh, first, run, outcomes } = await twoIssues(4, false);
    await run;
    const record = await outcomes.get(first);
    expect(record?.sessions.map((s) => s.outcome).sort()).toEqual([
      'resolved',
      'verify_failed',
      'verify_failed',
    ]);
    const comment =
      gh.emulator.comments(first).find((c) => c.body.includes('issueloop:tracking'))?.body ?? '';
    const listed = parseSessionsLine(comment) ?? [];
    expect(listed.map((s) => [s.outcome, s.usd])).toEqual(record?.sessions.map((s) => [s.outcome, s.usd]));
    expect(listed.every((s) => s.usd > 0)).toBe(true);
  });
});
