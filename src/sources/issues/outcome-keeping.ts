import type { SessionEntry, SessionKind } from '../../claims/outcome-record.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import type { RunCause } from '../../scheduler/run-failure.js';
import type { ItemTracker, JudgeCall, TrackerInput } from '../../scheduler/work-source.js';
import type { SessionReport } from '../../session/session-report.js';
import type { FollowUp } from './follow-up.js';
import { quietly } from './issue-tracker.js';
import type { IssueSourceOptions } from './options.js';

/** The fields of a judge's entry that are not its call's. */
const JUDGE_REPORT = {
  issue: 0,
  attempt: 0,
  outcome: 'resolved',
  reason: '',
  filesChanged: [],
  verifyRuns: 0,
  modelCalls: 1,
  toolCalls: 0,
  tokens: 0,
  durationMs: 0,
  productivity: { score: 0 },
  partialContext: '',
  engine: 'native',
} as const satisfies Omit<SessionReport, 'model' | 'costUsd'>;

function usageOf(call: JudgeCall): Pick<SessionReport, 'usage'> {
  return call.usage ? { usage: call.usage } : {};
}

/** Why a session ran, as the outcome record names it: the first attempt (or its retry) or a follow-up. */
export function sessionKindOf(followUp: FollowUp | undefined): SessionKind {
  if (!followUp) return 'attempt';
  if (followUp.base) return 'base_merge';
  return followUp.failures.length > 0 ? 'ci_followup' : 'review_followup';
}

/** A finished session as its issue's outcome record keeps it. */
export function sessionEntryOf(
  report: SessionReport,
  ended: { kind: SessionKind; runId: string; at: number; paused?: RunCause | undefined },
): SessionEntry {
  const usage = report.usage;
  return {
    kind: ended.kind,
    at: new Date(ended.at).toISOString(),
    run_id: ended.runId,
    engine: report.engine ?? 'native',
    models: [...(report.models ?? (report.modelCalls > 0 ? [report.model] : []))],
    input_tokens: usage?.input ?? 0,
    output_tokens: usage?.output ?? 0,
    cache_read_tokens: usage?.cacheRead ?? 0,
    cache_write_tokens: usage?.cacheWrite ?? 0,
    usd: report.costUsd,
    duration_ms: report.durationMs,
    // As the claim records it: the run's own failure is not the issue's.
    outcome: ended.paused ? 'interrupted' : report.outcome,
  };
}

/**
 * The issue's tracker, with each finished session appended to its outcome record as soon as it
 * reports, before its claim is released (never
 * failing the session: a store that cannot be written is logged). Without an outcome store, the
 * tracker as it is.
 */
export function keepingOutcomes(
  tracker: ItemTracker,
  options: Pick<IssueSourceOptions, 'outcomes' | 'clock' | 'redact'>,
  issue: BacklogIssue,
  input: TrackerInput,
  kind: () => SessionKind,
): ItemTracker {
  const store = options.outcomes;
  if (!store) return tracker;
  const claimedAt = input.before?.lease?.claimed_at ?? new Date(options.clock.now()).toISOString();
  /** Each report once: a best-of-N claim reports every attempt, then its combined report (not kept again). */
  const recorded = new Set<SessionReport>();
  let sessionKind: SessionKind | undefined;
  let lastAt = Number.NEGATIVE_INFINITY;
  /**
   * When the entry ended, a millisecond after the claim's previous one at least: a best-of-N claim
   * records its attempts and its judge in one go, and the tracking comment knows a session by its
   * run, end and kind (tracked-sessions.ts), so entries of one instant would be listed once.
   */
  const endedAt = () => {
    lastAt = Math.max(options.clock.now(), lastAt + 1);
    return lastAt;
  };
  const keep = (entry: SessionEntry) =>
    quietly(options, input.log, `outcome record of #${issue.number}`, () =>
      store.recordSession(issue.number, entry, { title: issue.title, labels: issue.labels, claimedAt }),
    );
  const record = async (report: SessionReport, paused: RunCause | undefined) => {
    if (recorded.has(report)) return;
    recorded.add(report);
    sessionKind ??= kind();
    const at = endedAt();
    await keep(sessionEntryOf(report, { kind: sessionKind, runId: input.ledger.runId, at, paused }));
  };
  return {
    ...tracker,
    // As soon as the session reports: the work after it (release, comments) may still fail.
    sessionEnded: (report, paused) => record(report, paused),
    // The judge of a best-of-N claim: an `attempt` entry of its own, so its cost is the issue's too.
    judged: (call) =>
      keep({
        ...sessionEntryOf(
          {
            ...JUDGE_REPORT,
            model: call.model,
            models: [call.model],
            costUsd: call.costUsd,
            ...usageOf(call),
          },
          { kind: 'attempt', runId: input.ledger.runId, at: endedAt() },
        ),
        outcome: 'judged',
      }),
    async finished(report, after, paused) {
      // A session that reported nothing yet (no `sessionEnded` call): kept now.
      if (recorded.size === 0) await record(report, paused);
      return tracker.finished(report, after, paused);
    },
  };
}
