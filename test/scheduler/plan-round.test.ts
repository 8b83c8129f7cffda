import { describe, expect, it } from 'vitest';
import type { ClaimView } from '../../src/claims/claim-store.js';
import { blankRecord } from '../../src/claims/claims-state.js';
import type { BacklogIssue } from '../../src/github/issue-shape.js';
import type { TrustDecision } from '../../src/github/trust.js';
import { createEmptyRoundMonitor, describeSkip } from '../../src/scheduler/plan-round.js';
import { planRound } from '../../src/sources/issues/plan-issues.js';

const NOW = Date.UTC(2026, 10, 21, 12);

function issue(number: number): BacklogIssue {
  return {
    number,
    nodeId: `I_${number}`,
    title: `Issue ${number}`,
    body: '',
    labels: ['issueloop'],
    author: 'a',
    authorType: 'User',
    authorAssociation: 'MEMBER',
    createdAt: '2026-11-01T00:00:00Z',
    updatedAt: '2026-11-01T00:00:00Z',
    url: '',
    isPullRequest: false,
  };
}

function claim(number: number, fields: Partial<ClaimView>): ClaimView {
  return { ...blankRecord(number), needs_human: false, ...fields };
}

const trusted: TrustDecision = { trusted: true, reason: 'author_association', by: 'a' };

function plan(count: number, claims: ClaimView[], untrusted: number[] = []) {
  const issues = Array.from({ length: count }, (_, i) => issue(i + 1));
  const trust = new Map<number, TrustDecision>(
    issues.map((i) => [
      i.number,
      untrusted.includes(i.number) ? { trusted: false, reason: 'author is NONE' } : trusted,
    ]),
  );
  return planRound({ issues, claims: new Map(claims.map((c) => [c.issue, c])), trust, now: NOW });
}

const lease = (issueNumber: number, expires: number) => ({
  issue: issueNumber,
  owner: 'host:1',
  token: 1,
  claimed_at: new Date(NOW - 60_000).toISOString(),
  expires_at: new Date(expires).toISOString(),
  ttl_ms: 1_800_000,
});

describe('round plan', () => {
  it('keeps the backlog order, puts interrupted issues first and issues with 3+ failures last', () => {
    const result = plan(5, [
      claim(2, { failure_count: 3, last_outcome: 'verify_failed' }),
      claim(4, { last_outcome: 'interrupted', interrupted_at: new Date(NOW).toISOString() }),
      claim(5, { failure_count: 2 }),
    ]);
    expect(result.candidates.map((i) => i.number)).toEqual([4, 1, 3, 5, 2]);
  });

  it('skips live leases, needs-human and untrusted issues, each with its reason; an expired lease is free', () => {
    const result = plan(
      5,
      [
        claim(1, { lease: lease(1, NOW + 60_000) }),
        claim(2, { lease: lease(2, NOW - 1) }),
        claim(3, { needs_human: true, failure_count: 3 }),
        claim(5, { last_outcome: 'resolved' }),
      ],
      [4],
    );
    expect(result.candidates.map((i) => i.number)).toEqual([2]);
    expect(result.skipped.map((s) => [s.issue.number, describeSkip(s.reason)])).toEqual([
      [1, `leased by host:1 until ${new Date(NOW + 60_000).toISOString()}`],
      [3, 'needs a human after 3 failures'],
      [4, 'untrusted: author is NONE'],
      [5, 'resolved: its pull request awaits review'],
    ]);
  });
});

describe('issues whose pull request was merged or closed', () => {
  it('a merged one is never worked again, even open and labelled; a closed one is queued again', () => {
    const result = plan(2, [claim(1, { last_outcome: 'merged' }), claim(2, { last_outcome: 'pr_closed' })]);
    expect(result.candidates.map((i) => i.number)).toEqual([2]);
    expect(result.skipped.map((s) => [s.issue.number, describeSkip(s.reason)])).toEqual([
      [1, 'merged: its pull request is in'],
    ]);
  });

  it('regression: one sent to a human after its PR stays skipped without the needs-human label', () => {
    const result = plan(2, [
      claim(1, { last_outcome: 'followups_exhausted' }),
      claim(2, { last_outcome: 'pr_closed_needs_human' }),
    ]);
    expect(result.candidates).toEqual([]);
    expect(result.skipped.map((s) => [s.issue.number, describeSkip(s.reason)])).toEqual([
      [1, 'needs a human: its pull request still needs work after pr.max_followups follow-ups'],
      [2, 'needs a human: its pull request was closed without merging'],
    ]);
  });
});

describe('empty-round monitor', () => {
  it('stops after N consecutive empty rounds; any claimable round resets the streak', () => {
    const monitor = createEmptyRoundMonitor(3);
    expect([0, 0, 1, 0, 0].map((n) => monitor.record(n))).toEqual([false, false, false, false, false]);
    expect(monitor.record(0)).toBe(true);
  });
});

describe('a run for a pull request event (follow-ups only)', () => {
  it('works the follow-ups and leaves every other ready issue for a later run, saying why', () => {
    const issues = [issue(1), issue(2)];
    const trust = new Map<number, TrustDecision>(issues.map((i) => [i.number, trusted]));
    const claims = new Map([[1, claim(1, { last_outcome: 'resolved' })]]);
    const planned = planRound({
      issues,
      claims,
      trust,
      now: NOW,
      followUps: new Set([1]),
      followUpsOnly: true,
    });
    expect(planned.candidates.map((i) => i.number)).toEqual([1]);
    expect(planned.skipped.map((s) => [s.issue.number, describeSkip(s.reason)])).toEqual([
      [2, 'left for a later run: a pull request event runs follow-ups only'],
    ]);
    const everything = planRound({ issues, claims, trust, now: NOW, followUps: new Set([1]) });
    expect(everything.candidates.map((i) => i.number)).toEqual([1, 2]);
  });
});

describe("the action's run for /issueloop stop (claims nothing)", () => {
  it('claims no issue, a follow-up included, and says why', () => {
    const issues = [issue(1), issue(2)];
    const trust = new Map<number, TrustDecision>(issues.map((i) => [i.number, trusted]));
    const claims = new Map([[1, claim(1, { last_outcome: 'resolved' })]]);
    const base = { issues, claims, trust, now: NOW, followUps: new Set([1]) };
    expect(planRound(base).candidates.map((i) => i.number)).toEqual([1, 2]);
    const stopped = planRound({ ...base, claimNothing: 'a /issueloop stop runs no session' });
    expect(stopped.candidates).toEqual([]);
    expect(stopped.skipped.map((s) => [s.issue.number, describeSkip(s.reason)])).toEqual([
      [1, 'left for a later run: a /issueloop stop runs no session'],
      [2, 'left for a later run: a /issueloop stop runs no session'],
    ]);
  });
});

describe('blocked issues', () => {
  it('skips an issue with open blockers (naming each, an unreadable one as counted open), unless it is a follow-up', () => {
    const issues = [issue(1), issue(2), issue(3)];
    const trust = new Map<number, TrustDecision>(issues.map((i) => [i.number, trusted]));
    const blockers = new Map([
      [
        1,
        [
          { ref: '#7', state: 'open' as const },
          { ref: 'other/api#4', state: 'unreadable' as const },
        ],
      ],
      [2, [{ ref: '#7', state: 'open' as const }]],
    ]);
    const result = planRound({
      issues,
      claims: new Map(),
      trust,
      now: NOW,
      blockers,
      followUps: new Set([2]),
    });
    expect(result.candidates.map((i) => i.number)).toEqual([2, 3]);
    expect(result.skipped.map((s) => [s.issue.number, describeSkip(s.reason)])).toEqual([
      [1, 'blocked by #7 (open), other/api#4 (not readable with this token: counted as open)'],
    ]);
  });
});
