import { describe, expect, it } from 'vitest';
import { createMemoryOutcomeStore } from '../../../src/claims/file-outcome-store.js';
import { runRounds } from '../../../src/scheduler/run-rounds.js';
import { readLedger } from '../../../src/session/ledger.js';
import type { SessionReport } from '../../../src/session/session-report.js';
import type { FollowUp } from '../../../src/sources/issues/follow-up.js';
import { createIssueSource } from '../../../src/sources/issues/issue-source.js';
import { sessionEntryOf, sessionKindOf } from '../../../src/sources/issues/outcome-keeping.js';
import { member, roundsFixture } from '../../scheduler/rounds-fixture.js';

const { repo, setup } = roundsFixture();

describe('the kind of a session', () => {
  it('is an attempt without a follow-up, else what the follow-up is for', () => {
    const pull = {} as FollowUp['pull'];
    expect(sessionKindOf(undefined)).toBe('attempt');
    expect(sessionKindOf({ pull, failures: [], reviews: [], base: { moved: 'behind' } })).toBe('base_merge');
    expect(sessionKindOf({ pull, failures: [{} as never], reviews: [] })).toBe('ci_followup');
    expect(sessionKindOf({ pull, failures: [], reviews: [{} as never] })).toBe('review_followup');
  });
});

describe("a session's outcome entry", () => {
  const report = {
    outcome: 'error:billing',
    model: 'm2',
    modelCalls: 3,
    usage: { input: 10, output: 20, cacheRead: 30, cacheWrite: 40 },
    engine: 'claude-code',
    models: ['m1', 'm2'],
    costUsd: 0.5,
    durationMs: 1234,
  } as SessionReport;

  it('keeps the billed token split, dollars, engine and models', () => {
    expect(sessionEntryOf(report, { kind: 'ci_followup', runId: 'r9', at: Date.UTC(2026, 10, 2) })).toEqual({
      kind: 'ci_followup',
      at: '2026-11-02T00:00:00.000Z',
      run_id: 'r9',
      engine: 'claude-code',
      models: ['m1', 'm2'],
      input_tokens: 10,
      output_tokens: 20,
      cache_read_tokens: 30,
      cache_write_tokens: 40,
      usd: 0.5,
      duration_ms: 1234,
      outcome: 'error:billing',
    });
  });

  it("records the run's own failure as the claim does: interrupted", () => {
    const paused = { errorClass: 'billing', message: 'm', fix: 'f' } as never;
    expect(sessionEntryOf(report, { kind: 'attempt', runId: 'r', at: 0, paused }).outcome).toBe(
      'interrupted',
    );
  });
});

describe('a run keeps outcome records', () => {
  it("a session's entry lands with its tokens and dollars, as the ledger counted them", async () => {
    const { gh, ctx, clock, log } = await setup();
    const issue = gh.emulator.addIssue(member('Fix the greeting typo'));
    const outcomes = createMemoryOutcomeStore();
    const source = createIssueSource({
      github: gh.adapter,
      config: gh.config,
      redact: ctx.redact,
      checkout: repo.fx.checkout,
      remote: 'origin',
      baseBranch: 'main',
      log,
      clock,
      outcomes,
    });
    const summary = await runRounds({ ...ctx, source }, { owner: 'host:1' });
    expect(summary.reports.map((r) => r.outcome)).toEqual(['resolved']);
    await ctx.ledger.flush();
    const { events } = await readLedger(ctx.ledger.file);
    const calls = events.filter((e) => e.type === 'model_call') as unknown as Array<{
      model: string;
      usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
    }>;
    const sum = (pick: (u: (typeof calls)[number]['usage']) => number) =>
      calls.reduce((total, call) => total + pick(call.usage), 0);
    const outcome = events.find((e) => e.type === 'outcome') as unknown as {
      costUsd: number;
      durationMs: number;
    };
    expect(calls.length).toBeGreaterThan(0);

    const record = await outcomes.get(issue);
    expect(record?.title).toBe('Fix the greeting typo');
    expect(record?.labels).toContain('issueloop');
    const claim = events.find((e) => e.type === 'claim');
    expect(Date.parse(record?.first_claimed_at ?? '')).toBeLessThanOrEqual(Date.parse(claim?.ts ?? ''));
    expect(record?.sessions).toEqual([
      {
        kind: 'attempt',
        at: expect.any(String),
        run_id: 'r',
        engine: 'native',
        models: [...new Set(calls.map((c) => c.model))],
        input_tokens: sum((u) => u.input),
        output_tokens: sum((u) => u.output),
        cache_read_tokens: sum((u) => u.cacheRead),
        cache_write_tokens: sum((u) => u.cacheWrite),
        usd: outcome.costUsd,
        duration_ms: outcome.durationMs,
        outcome: 'resolved',
      },
    ]);
    expect(record?.sessions[0]?.usd).toBeGreaterThan(0);
    expect(record?.sessions[0]?.output_tokens).toBeGreaterThan(0);
  });
});
