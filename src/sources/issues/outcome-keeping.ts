import type { SessionEntry, SessionKind } from '../../claims/outcome-record.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import type { RunCause } from '../../scheduler/run-failure.js';
import type { ItemTracker, TrackerInput } from '../../scheduler/work-source.js';
import type { SessionReport } from '../../session/session-report.js';
import type { FollowUp } from './follow-up.js';
import { quietly } from './issue-tracker.js';
import type { IssueSourceOptions } from './options.js';

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
  let recorded = false;
  const record = async (report: SessionReport, paused: RunCause | undefined) => {
    if (recorded) return;
    recorded = true;
    const entry = sessionEntryOf(report, {
      kind: kind(),
      runId: input.ledger.runId,
      at: options.clock.now(),
      paused,
    });
    await quietly(options, input.log, `outcome record of #${issue.number}`, () =>
      store.recordSession(issue.number, entry, { title: issue.title, labels: issue.labels, claimedAt }),
    );
  };
  return {
    ...tracker,
    // As soon as the session reports: the work after it (release, comments) may still fail.
    sessionEnded: (report, paused) => record(report, paused),
    async finished(report, after, paused) {
      await record(report, paused);
      return tracker.finished(report, after, paused);
    },
  };
}
